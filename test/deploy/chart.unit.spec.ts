// CI checks of charts/commodity-data without a cluster: helm lint --strict, helm template for every
// values set in ci/, every object validated against the Kubernetes API schemas, and policy assertions
// over the rendered objects (limits, probes, non-root, pinned images, Services, NetworkPolicies...).
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { BlockList, isIPv4 } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SYNC_SCHEDULES } from '@cds/ingest/schedule';
import {
  chartDir,
  type K8sObject,
  helmTemplate,
  type LabelSelector,
  kubeVersion,
  parseManifests,
  podTemplates,
  renderChart,
  requireTool,
  run,
  selectorMatches,
  validateObject,
} from './helpers.ts';

const valuesFiles = readdirSync(path.join(chartDir, 'ci'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => `ci/${f}`)
  .sort();
const release = 'cds-test';
const namespace = 'commodity';
/** Addresses a webhook must never reach: private, loopback, link-local (the cloud metadata service), CGNAT, unique-local... */
const NON_PUBLIC_SAMPLES = [
  '10.0.0.1',
  '10.255.255.254',
  '172.16.0.1',
  '172.31.255.1',
  '192.168.1.10',
  '127.0.0.1',
  '127.8.9.10',
  '169.254.169.254',
  '100.64.0.1',
  '100.127.255.254',
  '0.0.0.0',
  '::1',
  '::',
  'fe80::1',
  'fd00::1',
  'fc00::abcd',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '64:ff9b::a9fe:a9fe',
];
/** Public addresses (documentation ranges are not public, so these are real-world ones). */
const PUBLIC_SAMPLES = ['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'];

type EgressPeer = {
  ipBlock?: { cidr: string; except?: string[] };
  namespaceSelector?: LabelSelector;
  podSelector?: LabelSelector;
};
type EgressRule = { to?: EgressPeer[]; ports: { port: number | string; protocol: string }[] };

/** Whether `address` lies in one of `cidrs` of its own family (node:net BlockList does the arithmetic). */
function inCidrs(address: string, cidrs: readonly string[]): boolean {
  const family = isIPv4(address) ? 'ipv4' : 'ipv6';
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [base, bits] = cidr.split('/') as [string, string];
    if ((isIPv4(base) ? 'ipv4' : 'ipv6') === family) list.addSubnet(base, Number(bits), family);
  }
  return list.check(address, family);
}

/**
 * NetworkPolicy egress semantics for one TCP connection: some rule names the port and either has no
 * `to` (any address) or a peer admitting the address. A selector peer is taken to admit it (pods and
 * namespaces have cluster addresses, which are private ones): conservative for "never reachable" checks.
 */
function egressAllows(rules: readonly EgressRule[], address: string, port: number): boolean {
  return rules.some((r) => {
    if (!r.ports.some((p) => p.port === port && p.protocol === 'TCP')) return false;
    if (r.to === undefined) return true;
    return r.to.some((peer) =>
      peer.ipBlock ? inCidrs(address, [peer.ipBlock.cidr]) && !inCidrs(address, peer.ipBlock.except ?? []) : true,
    );
  });
}

/**
 * NOTES.txt as `helm install` prints it (helm template skips it: a copy of the chart renders it as a
 * YAML document). `extraArgs` as for helmTemplate (`--set`, `--is-upgrade`...).
 */
function renderNotes(valuesFile: string, extraArgs: readonly string[] = []): string {
  const copy = mkdtempSync(path.join(tmpdir(), 'cds-chart-'));
  try {
    cpSync(chartDir, copy, { recursive: true });
    const notes = readFileSync(path.join(copy, 'templates/NOTES.txt'), 'utf8');
    writeFileSync(path.join(copy, 'templates/notes-check.yaml'), `notes: |\n${notes.replace(/^/gm, '  ')}`);
    const r = helmTemplate(
      valuesFile,
      release,
      namespace,
      [...extraArgs, '--show-only', 'templates/notes-check.yaml'],
      copy,
    );
    if (r.status !== 0) throw new Error(`NOTES.txt with ${valuesFile} failed:\n${r.stderr}`);
    return (parse(r.stdout) as { notes: string }).notes;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

const pinnedImage = /^[a-z0-9.:/_-]+(@sha256:[a-f0-9]{64}|:(?!latest$)[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})$/;

describe('helm (installed by scripts/bootstrap.sh)', () => {
  it('is present', () => {
    const helm = requireTool('helm');
    const r = run(helm, ['version', '--template', '{{.Version}}']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^v3\./);
  });
});

it('has the three CI value sets the issue asks for', () => {
  expect(valuesFiles).toEqual(['ci/default-values.yaml', 'ci/minimal-values.yaml', 'ci/production-values.yaml']);
});

describe.each(valuesFiles)('chart with %s', (valuesFile) => {
  let objects: K8sObject[] = [];
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const named = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
  const otelEnabled = () => byKind('ConfigMap')[0]?.data?.OTEL_TRACES_EXPORTER === 'otlp';

  beforeAll(() => {
    objects = renderChart(valuesFile, release, namespace);
  });

  it('passes helm lint --strict', () => {
    const r = run(requireTool('helm'), [
      'lint',
      '--strict',
      chartDir,
      '--namespace',
      namespace,
      '--kube-version',
      kubeVersion,
      '--values',
      path.join(chartDir, valuesFile),
    ]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('renders objects that all validate against the Kubernetes API schemas', () => {
    expect(objects.length).toBeGreaterThan(5);
    expect(objects.flatMap(validateObject)).toEqual([]);
  });

  it('gives every object a unique kind/name, the release namespace and the standard labels', () => {
    const keys = objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const o of objects) {
      expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe(namespace);
      expect(o.metadata.labels).toMatchObject({
        'app.kubernetes.io/instance': release,
        'app.kubernetes.io/managed-by': 'Helm',
        'app.kubernetes.io/part-of': 'commodity-data',
      });
      expect(o.metadata.name.length).toBeLessThanOrEqual(o.kind === 'CronJob' ? 52 : 63);
    }
  });

  it('runs every container non-root, read-only, unprivileged, with limits, requests and a pinned image', () => {
    const pods = podTemplates(objects);
    expect(pods.length).toBeGreaterThan(0);
    for (const pod of pods) {
      const where = `${pod.owner.kind} ${pod.owner.metadata.name}`;
      expect(pod.spec.securityContext?.runAsNonRoot, where).toBe(true);
      expect(pod.spec.securityContext?.runAsUser, where).toBeGreaterThan(0);
      expect(pod.spec.automountServiceAccountToken, where).toBe(false);
      const tmp = pod.spec.volumes?.find((v: { name: string }) => v.name === 'tmp');
      expect(tmp?.emptyDir, `${where}: /tmp must be an emptyDir`).toBeDefined();
      for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
        const at = `${where} container ${c.name}`;
        expect(c.image, at).toMatch(pinnedImage);
        expect(c.resources?.limits?.cpu, at).toBeDefined();
        expect(c.resources?.limits?.memory, at).toBeDefined();
        expect(c.resources?.requests?.cpu, at).toBeDefined();
        expect(c.resources?.requests?.memory, at).toBeDefined();
        const sc = c.securityContext ?? {};
        expect(sc.runAsNonRoot ?? pod.spec.securityContext?.runAsNonRoot, at).toBe(true);
        expect(sc.runAsUser ?? pod.spec.securityContext?.runAsUser, at).not.toBe(0);
        expect(sc.readOnlyRootFilesystem, at).toBe(true);
        expect(sc.allowPrivilegeEscalation, at).toBe(false);
        expect(sc.privileged ?? false, at).toBe(false);
        expect(sc.capabilities?.drop, at).toContain('ALL');
        expect(sc.capabilities?.add ?? [], at).toEqual([]);
        expect(c.volumeMounts, at).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
        expect(c.command.slice(0, 2), at).toEqual(['node', '--disable-warning=ExperimentalWarning']);
      }
    }
  });

  it('probes every Deployment container: readiness on /readyz, liveness on /healthz, on a declared port', () => {
    const deployments = byKind('Deployment');
    expect(deployments.length).toBeGreaterThan(0);
    for (const d of deployments) {
      for (const c of d.spec.template.spec.containers) {
        const at = `Deployment ${d.metadata.name} container ${c.name}`;
        const ports = (c.ports ?? []).flatMap((p: { name?: string; containerPort: number }) => [
          p.name,
          p.containerPort,
        ]);
        expect(c.readinessProbe?.httpGet?.path, at).toBe('/readyz');
        expect(c.livenessProbe?.httpGet?.path, at).toBe('/healthz');
        expect(ports, at).toContain(c.readinessProbe.httpGet.port);
        expect(ports, at).toContain(c.livenessProbe.httpGet.port);
        const portEnv = c.env.find((e: { name: string }) => e.name === 'PORT');
        expect(Number(portEnv?.value), at).toBe(c.ports[0].containerPort);
      }
    }
  });

  it('gives each Deployment a selector that matches its own pods and no other workload', () => {
    const pods = podTemplates(objects);
    for (const d of byKind('Deployment')) {
      const selected = pods.filter((p) => selectorMatches(d.spec.selector, p.labels));
      expect(selected.map((p) => `${p.owner.kind}/${p.owner.metadata.name}`)).toEqual([
        `Deployment/${d.metadata.name}`,
      ]);
    }
  });

  it('has every Service select pods that exist and target a port those pods declare', () => {
    const services = byKind('Service');
    expect(services.length).toBeGreaterThan(0);
    const deployments = podTemplates(objects).filter((p) => p.owner.kind === 'Deployment');
    for (const s of services) {
      expect(s.spec.type ?? 'ClusterIP', s.metadata.name).toBe('ClusterIP');
      const selected = deployments.filter((p) => selectorMatches({ matchLabels: s.spec.selector }, p.labels));
      expect(selected.length, `Service ${s.metadata.name} selects no pods`).toBeGreaterThan(0);
      for (const port of s.spec.ports) {
        for (const p of selected) {
          const declared = p.spec.containers.flatMap((c: { ports?: { name?: string; containerPort: number }[] }) =>
            (c.ports ?? []).flatMap((cp) => [cp.name, cp.containerPort]),
          );
          expect(declared, `Service ${s.metadata.name} port ${port.name}`).toContain(port.targetPort);
        }
      }
    }
  });

  it('has every HPA target a Deployment without fixed replicas, and every PDB select exactly one Deployment', () => {
    for (const hpa of byKind('HorizontalPodAutoscaler')) {
      const target = named('Deployment', hpa.spec.scaleTargetRef.name);
      expect(target, `HPA ${hpa.metadata.name}`).toBeDefined();
      expect(target!.spec.replicas, `HPA ${hpa.metadata.name} fights a fixed replica count`).toBeUndefined();
      expect(hpa.spec.minReplicas).toBeLessThanOrEqual(hpa.spec.maxReplicas);
    }
    for (const d of byKind('Deployment')) {
      if (!byKind('HorizontalPodAutoscaler').some((h) => h.spec.scaleTargetRef.name === d.metadata.name)) {
        expect(d.spec.replicas, `Deployment ${d.metadata.name}`).toBeGreaterThanOrEqual(1);
      }
    }
    const pods = podTemplates(objects);
    for (const pdb of byKind('PodDisruptionBudget')) {
      const selected = pods.filter((p) => selectorMatches(pdb.spec.selector, p.labels));
      expect(
        selected.map((p) => p.owner.kind),
        `PDB ${pdb.metadata.name}`,
      ).toEqual(['Deployment']);
    }
  });

  it('references only objects that exist: ConfigMap, ServiceAccount, the gateway QUERY_URL', () => {
    for (const pod of podTemplates(objects)) {
      const sa = pod.spec.serviceAccountName;
      if (sa !== 'default')
        expect(named('ServiceAccount', sa), `${pod.owner.metadata.name}: ServiceAccount ${sa}`).toBeDefined();
      for (const c of pod.spec.containers) {
        for (const from of c.envFrom ?? []) {
          if (from.configMapRef) expect(named('ConfigMap', from.configMapRef.name)).toBeDefined();
        }
        const queryUrl = c.env?.find((e: { name: string }) => e.name === 'QUERY_URL')?.value;
        if (queryUrl) {
          const url = new URL(queryUrl);
          const svc = named('Service', url.hostname);
          expect(svc, `QUERY_URL ${queryUrl}`).toBeDefined();
          expect(svc!.spec.ports.map((p: { port: number }) => p.port)).toContain(Number(url.port));
          expect(svc!.spec.selector['app.kubernetes.io/component']).toBe('query');
        }
      }
    }
  });

  it('routes the Ingress to the gateway Service, and /dashboard to the dashboard, with TLS for its host when enabled', () => {
    for (const ing of byKind('Ingress')) {
      for (const rule of ing.spec.rules) {
        for (const p of rule.http.paths) {
          const svc = named('Service', p.backend.service.name);
          expect(svc, `Ingress backend ${p.backend.service.name}`).toBeDefined();
          expect(svc!.spec.selector['app.kubernetes.io/component']).toBe(
            p.path === '/dashboard' ? 'dashboard' : 'gateway',
          );
          expect(svc!.spec.ports.map((sp: { name: string }) => sp.name)).toContain(p.backend.service.port.name);
        }
        for (const tls of ing.spec.tls ?? []) expect(tls.hosts).toContain(rule.host);
      }
    }
  });

  it('exposes only the API and its docs: /metrics, /healthz and /readyz are not routed from outside', () => {
    const paths = byKind('Ingress').flatMap((ing) =>
      ing.spec.rules.flatMap((rule: { http: { paths: { path: string }[] } }) => rule.http.paths.map((p) => p.path)),
    );
    if (paths.length === 0) return;
    for (const internal of ['/metrics', '/healthz', '/readyz', '/']) expect(paths).not.toContain(internal);
    expect(paths).toEqual(expect.arrayContaining(['/api', '/docs']));
    for (const p of paths) expect(['/api', '/docs', '/dashboard', '/api/v1/events']).toContain(p);
  });

  it('streams /api/v1/events through an Ingress of its own that neither buffers nor times out a stream', () => {
    const ingresses = byKind('Ingress');
    if (ingresses.length === 0) return;
    const events = ingresses.filter((ing) =>
      ing.spec.rules.some((r: { http: { paths: { path: string }[] } }) =>
        r.http.paths.some((p) => p.path === '/api/v1/events'),
      ),
    );
    expect(events.length).toBe(1);
    const ing = events[0]!;
    expect(ing.spec.rules[0].http.paths).toHaveLength(1);
    const a = ing.metadata.annotations as Record<string, string>;
    expect(a['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    expect(Number(a['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(3600);
    expect(Number(a['nginx.ingress.kubernetes.io/proxy-send-timeout'])).toBeGreaterThanOrEqual(3600);
    // Only that path: the rest of the API keeps the controller's buffering and timeouts.
    for (const other of ingresses.filter((i) => i !== ing)) {
      const oa = (other.metadata.annotations ?? {}) as Record<string, string>;
      expect(oa['nginx.ingress.kubernetes.io/proxy-buffering']).toBeUndefined();
      expect(oa['nginx.ingress.kubernetes.io/proxy-read-timeout']).toBeUndefined();
    }
    // cert-manager issues the host's certificate once, from the main Ingress.
    expect(Object.keys(a).filter((k) => k.includes('cert-manager.io/'))).toEqual([]);
    expect(ing.spec.tls).toEqual(ingresses.find((i) => i !== ing)!.spec.tls);
  });

  it('keeps secrets out of the chart: no Secret objects, no secret-looking values in ConfigMaps or env', () => {
    expect(byKind('Secret')).toEqual([]);
    for (const cm of byKind('ConfigMap')) {
      for (const [k, v] of Object.entries(cm.data ?? {})) {
        expect(k).not.toMatch(/TOKEN|KEY|PASSWORD|SECRET/);
        expect(String(v)).not.toMatch(/\/\/[^/@\s]+:[^/@\s]+@/);
      }
    }
    for (const pod of podTemplates(objects)) {
      for (const c of pod.spec.containers) {
        for (const e of c.env ?? []) {
          if (/TOKEN|API_KEY|PASSWORD|SECRET|SMTP_URL/.test(e.name))
            expect(e.valueFrom?.secretKeyRef, `${c.name} ${e.name}`).toBeDefined();
        }
      }
    }
  });

  describe('NetworkPolicies', () => {
    type Peer = { namespaceSelector?: LabelSelector; podSelector?: LabelSelector; ipBlock?: unknown };
    const policies = () => byKind('NetworkPolicy');
    const podsOf = (component: string) =>
      podTemplates(objects).filter((p) => p.labels['app.kubernetes.io/component'] === component);
    /** The peers allowed to reach a pod: undefined when no policy selects it (then everything may). */
    const allowedPeers = (labels: Record<string, string>): Peer[] | undefined => {
      const selecting = policies().filter((np) => selectorMatches(np.spec.podSelector, labels));
      if (selecting.length === 0) return undefined;
      return selecting.flatMap((np) => (np.spec.ingress ?? []).flatMap((rule: { from?: Peer[] }) => rule.from ?? [{}]));
    };
    const metricsPeer = (p: Peer) => {
      const sel = p.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
      return sel === 'monitoring';
    };

    it('select pods that exist', () => {
      const pods = podTemplates(objects);
      for (const np of policies()) {
        const selected = pods.filter((p) => selectorMatches(np.spec.podSelector, p.labels));
        expect(selected.length, `NetworkPolicy ${np.metadata.name} selects no pods`).toBeGreaterThan(0);
        expect(np.spec.policyTypes).toContain('Ingress');
      }
    });

    it('when enabled, cover every pod of the release with a default deny', () => {
      if (policies().length === 0) return;
      const deny = policies().find((np) => np.metadata.name.endsWith('-default-deny'));
      expect(deny).toBeDefined();
      expect(deny!.spec.ingress ?? []).toEqual([]);
      for (const p of podTemplates(objects)) expect(selectorMatches(deny!.spec.podSelector, p.labels)).toBe(true);
    });

    it('admit the ingress controller to the gateway and the dashboard, and to nothing else', () => {
      if (policies().length === 0) return;
      const fromIngressController = (p: Peer) =>
        p.namespaceSelector !== undefined &&
        !metricsPeer(p) &&
        p.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'ingress-nginx';
      for (const pod of [...podsOf('gateway'), ...podsOf('dashboard')])
        expect(allowedPeers(pod.labels)!.some(fromIngressController)).toBe(true);
      for (const pod of podTemplates(objects)) {
        const peers = allowedPeers(pod.labels);
        expect(peers, `${pod.owner.metadata.name} is not covered by any NetworkPolicy`).toBeDefined();
        if (['gateway', 'dashboard'].includes(pod.labels['app.kubernetes.io/component']!)) continue;
        for (const peer of peers!) {
          expect(peer.ipBlock, pod.owner.metadata.name).toBeUndefined();
          // Only the monitoring namespace may come from outside the namespace, and only when enabled.
          if (peer.namespaceSelector !== undefined) expect(metricsPeer(peer), pod.owner.metadata.name).toBe(true);
        }
      }
    });

    it('admit only the gateway and the dashboard (catalog checks of webhook filters) to query', () => {
      if (policies().length === 0) return;
      const pods = podTemplates(objects);
      for (const q of podsOf('query')) {
        const peers = allowedPeers(q.labels)!.filter((p) => !metricsPeer(p));
        expect(peers.length).toBeGreaterThan(0);
        const components = new Set<string>();
        for (const peer of peers) {
          expect(peer.namespaceSelector).toBeUndefined();
          expect(peer.ipBlock).toBeUndefined();
          const admitted = pods.filter((p) => selectorMatches(peer.podSelector, p.labels));
          expect(admitted.length).toBeGreaterThan(0);
          for (const p of admitted) components.add(p.labels['app.kubernetes.io/component']!);
        }
        const expected = podsOf('dashboard').length > 0 ? ['dashboard', 'gateway'] : ['gateway'];
        expect([...components].sort()).toEqual(expected);
      }
    });

    it('admit only the dashboard and the accounts pods to the accounts admin API: not the namespace, not the sync jobs', () => {
      if (policies().length === 0) return;
      const pods = podTemplates(objects);
      for (const i of podsOf('accounts')) {
        const peers = allowedPeers(i.labels)!.filter((p) => !metricsPeer(p));
        expect(peers.length).toBeGreaterThan(0);
        const components = new Set<string>();
        for (const peer of peers) {
          // A peer naming pods by labels, within the namespace: never `podSelector: {}` nor an address block.
          expect(peer.namespaceSelector).toBeUndefined();
          expect(peer.ipBlock).toBeUndefined();
          expect(Object.keys(peer.podSelector?.matchLabels ?? {})).toContain('app.kubernetes.io/component');
          for (const p of pods.filter((p) => selectorMatches(peer.podSelector, p.labels)))
            components.add(p.labels['app.kubernetes.io/component']!);
        }
        const expected = podsOf('dashboard').length > 0 ? ['accounts', 'dashboard'] : ['accounts'];
        expect([...components].sort()).toEqual(expected);
        // A pod of any other component of the namespace (or a foreign one carrying the release's labels) is not admitted.
        const stranger = { ...i.labels, 'app.kubernetes.io/component': 'ingest-job' };
        expect(peers.some((p) => selectorMatches(p.podSelector, stranger))).toBe(false);
        expect(peers.some((p) => selectorMatches(p.podSelector, { app: 'anything' }))).toBe(false);
      }
    });

    it("limit the dashboard's egress to DNS, the accounts admin API, the gateway, query, MongoDB, Redis and SMTP", () => {
      if (policies().length === 0) return;
      const dashboards = podsOf('dashboard');
      if (dashboards.length === 0) return;
      const pods = podTemplates(objects);
      for (const d of dashboards) {
        const selecting = policies().filter((np) => selectorMatches(np.spec.podSelector, d.labels));
        const egress = selecting.filter(
          (np) => np.spec.policyTypes.includes('Egress') && !np.metadata.name.endsWith('-default-deny'),
        );
        expect(egress.length).toBe(1);
        type Rule = { to?: Peer[]; ports: { port: number | string; protocol: string }[] };
        const rules = egress[0]!.spec.egress as Rule[];
        const ports = rules.flatMap((r) => r.ports.map((p) => `${p.protocol}/${p.port}`));
        expect(ports).toEqual(expect.arrayContaining(['UDP/53', 'TCP/53', 'TCP/27017', 'TCP/6379']));
        // The admin API: only the accounts pods, on their port.
        const ingestPort = byKind('Service').find(
          (svc) => svc.spec.selector['app.kubernetes.io/component'] === 'accounts',
        )?.spec.ports[0].port;
        const toIngest = rules.filter((r) => r.ports.some((p) => p.port === ingestPort));
        expect(toIngest.length).toBe(1);
        for (const peer of toIngest[0]!.to!) {
          const admitted = pods.filter((p) => selectorMatches(peer.podSelector, p.labels));
          expect(new Set(admitted.map((p) => p.labels['app.kubernetes.io/component']))).toEqual(new Set(['accounts']));
        }
        // Query (the catalog, for webhook filters): only the query pods, on their port.
        const queryPort = byKind('Service').find((svc) => svc.spec.selector['app.kubernetes.io/component'] === 'query')
          ?.spec.ports[0].port;
        const toQuery = rules.filter((r) => r.ports.some((p) => p.port === queryPort));
        expect(toQuery.length).toBe(1);
        for (const peer of toQuery[0]!.to!) {
          const admitted = pods.filter((p) => selectorMatches(peer.podSelector, p.labels));
          expect(new Set(admitted.map((p) => p.labels['app.kubernetes.io/component']))).toEqual(new Set(['query']));
        }
        // The gateway (the status page reads GET /datasets): only the gateway pods, on their port.
        const gatewayPort = byKind('Service').find(
          (svc) => svc.spec.selector['app.kubernetes.io/component'] === 'gateway',
        )?.spec.ports[0].port;
        const toGateway = rules.filter((r) => r.ports.some((p) => p.port === gatewayPort));
        expect(toGateway.length).toBe(1);
        for (const peer of toGateway[0]!.to!) {
          const admitted = pods.filter((p) => selectorMatches(peer.podSelector, p.labels));
          expect(new Set(admitted.map((p) => p.labels['app.kubernetes.io/component']))).toEqual(new Set(['gateway']));
        }
        // Nothing else: every rule names its ports (the collector's too, when tracing is on).
        for (const r of rules) expect(r.ports.length).toBeGreaterThan(0);
        expect(rules.length).toBe(7 + (otelEnabled() ? 1 : 0));
      }
    });

    it("limit every workload's egress to what it uses: DNS, its servers, its peers (#16)", () => {
      if (policies().length === 0) return;
      const deny = policies().find((np) => np.metadata.name.endsWith('-default-deny'))!;
      expect(deny.spec.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(deny.spec.egress ?? []).toEqual([]);
      // What each component may reach, by port (in-cluster addresses are private ones); anything else is refused.
      const uses: Record<string, number[]> = {
        gateway: [4222, 6379, 8081],
        query: [4222, 27017],
        projector: [4222, 27017],
        accounts: [4222],
        'ingest-job': [4222],
        dashboard: [27017, 6379, 8083, 8081, 8080],
        notifier: [4222, 27017],
      };
      const otel = otelEnabled() ? [4318] : [];
      const cluster = '10.96.0.10';
      const pods = podTemplates(objects);
      const components = new Set(pods.map((p) => p.labels['app.kubernetes.io/component']!));
      expect([...components].filter((c) => !(c in uses))).toEqual([]);
      for (const pod of pods) {
        const component = pod.labels['app.kubernetes.io/component']!;
        const at = `${pod.owner.kind} ${pod.owner.metadata.name}`;
        const own = policies().filter(
          (np) =>
            np !== deny && selectorMatches(np.spec.podSelector, pod.labels) && np.spec.policyTypes.includes('Egress'),
        );
        expect(own.length, `${at} has no egress policy of its own`).toBe(1);
        const rules = own[0]!.spec.egress as EgressRule[];
        for (const r of rules) expect(r.ports.length, at).toBeGreaterThan(0);
        const reach = (address: string, port: number) => egressAllows(rules, address, port);
        expect(reach(cluster, 53), `${at}: DNS`).toBe(true);
        for (const port of [...uses[component]!, ...otel]) expect(reach(cluster, port), `${at} -> ${port}`).toBe(true);
        const all = [...new Set(Object.values(uses).flat())];
        const others = [...all, 22, 80, 443, 5432, 8080, 9090, 10250].filter((p) => !uses[component]!.includes(p));
        for (const port of new Set(others))
          expect(reach(cluster, port), `${at} must not reach ${cluster}:${port}`).toBe(false);
        // The internet: only the sync jobs (the data sources) and the notifier (webhooks), on 443.
        const toInternet = ['ingest-job', 'notifier'].includes(component);
        for (const address of PUBLIC_SAMPLES) expect(reach(address, 443), `${at} -> ${address}:443`).toBe(toInternet);
        for (const address of NON_PUBLIC_SAMPLES)
          expect(reach(address, 443), `${at} must not reach ${address}:443`).toBe(false);
      }
    });

    it('admit nobody to the sync jobs, and let them reach only DNS, NATS and public https (the data sources)', () => {
      const jobs = podTemplates(objects).filter((p) => p.labels['app.kubernetes.io/component'] === 'ingest-job');
      if (policies().length === 0 || jobs.length === 0) return;
      for (const job of jobs) {
        expect(allowedPeers(job.labels), job.owner.metadata.name).toEqual([]);
        const rules = policies()
          .filter((np) => selectorMatches(np.spec.podSelector, job.labels))
          .flatMap((np) => (np.spec.egress ?? []) as EgressRule[]);
        const web = rules.find((r) => r.ports.some((p) => p.port === 443))!;
        expect(web.ports).toEqual([{ port: 443, protocol: 'TCP' }]);
        expect(web.to!.map((p) => p.ipBlock?.cidr).sort()).toEqual(['0.0.0.0/0', '::/0']);
      }
    });

    it("limit the notifier's egress to DNS, NATS, MongoDB, SMTP and public addresses on 443 (+ extra ports)", () => {
      if (policies().length === 0) return;
      const notifiers = podsOf('notifier');
      if (notifiers.length === 0) return;
      const values = parse(readFileSync(path.join(chartDir, valuesFile), 'utf8')) as {
        networkPolicy?: { notifierEgress?: { webhookExtraPorts?: number[] } };
      };
      const extraPorts = values.networkPolicy?.notifierEgress?.webhookExtraPorts ?? [];
      for (const n of notifiers) {
        const selecting = policies().filter((np) => selectorMatches(np.spec.podSelector, n.labels));
        const egress = selecting.filter(
          (np) => np.spec.policyTypes.includes('Egress') && !np.metadata.name.endsWith('-default-deny'),
        );
        expect(egress.length).toBe(1);
        const rules = egress[0]!.spec.egress as EgressRule[];
        for (const r of rules) expect(r.ports.length).toBeGreaterThan(0);
        const reach = (address: string, port: number) => egressAllows(rules, address, port);
        // Infrastructure: DNS anywhere, NATS, MongoDB and SMTP (in-cluster addresses are private ones).
        for (const port of [53, 4222, 27017]) expect(reach('10.96.0.10', port), `10.96.0.10:${port}`).toBe(true);
        // Webhook receivers: public addresses on 443 and the extra ports, and nothing else.
        for (const address of PUBLIC_SAMPLES) {
          expect(reach(address, 443), `${address}:443`).toBe(true);
          for (const port of extraPorts) expect(reach(address, port), `${address}:${port}`).toBe(true);
          for (const port of [80, 8080, 6379, 22]) expect(reach(address, port), `${address}:${port}`).toBe(false);
        }
        for (const address of NON_PUBLIC_SAMPLES) {
          for (const port of [443, 80, 8080, ...extraPorts])
            expect(reach(address, port), `${address}:${port} must stay unreachable`).toBe(false);
        }
        // The webhook rule itself: everything but the non-public ranges, in both families.
        const webhook = rules.find((r) => r.ports.some((p) => p.port === 443))!;
        const blocks = (webhook.to ?? []).map((p) => p.ipBlock);
        expect(blocks.map((b) => b?.cidr).sort()).toEqual(['0.0.0.0/0', '::/0']);
        for (const address of NON_PUBLIC_SAMPLES) {
          const family = isIPv4(address) ? '0.0.0.0/0' : '::/0';
          const block = blocks.find((b) => b?.cidr === family)!;
          expect(inCidrs(address, block.except ?? []), `${address} must be in an except range`).toBe(true);
        }
        // Ingress: from the metrics scraper only (nobody when metrics scraping is off).
        const peers = allowedPeers(n.labels)!;
        for (const peer of peers) expect(metricsPeer(peer)).toBe(true);
      }
    });
  });

  it('renders NOTES.txt with the values it names (helm template skips it: rendered here as a YAML document)', () => {
    const text = renderNotes(valuesFile);
    // (helm prints a missing value as nothing, so each line that names one is checked for its content)
    expect(text).toMatch(/The API is served at https?:\/\/[a-z0-9.-]+\/api\/v1 through|No Ingress is rendered/);
    expect(text).toContain('-notifier');
    const mailers = objects.filter(
      (o) =>
        o.kind === 'Deployment' &&
        o.spec.template.spec.containers[0].env.some(
          (e: { name: string; valueFrom?: { secretKeyRef?: { optional?: boolean } } }) =>
            e.name === 'SMTP_URL' && e.valueFrom?.secretKeyRef?.optional !== true,
        ),
    );
    if (mailers.length > 0) expect(text).toMatch(/with key "smtp-url" \(the SMTP relay of the /);
    else expect(text).not.toContain('smtp-url');
    // A throwaway install says so, naming every server without per-component users; others do not.
    const trial = (parse(readFileSync(path.join(chartDir, valuesFile), 'utf8')) as { trial?: boolean }).trial;
    if (trial) expect(text).toContain('WARNING (trial: true): NATS, MongoDB, Redis without per-component users');
    else expect(text).not.toContain('WARNING (trial: true)');
  });

  it('schedules ingest runs of the ingest CLI that never restart in place', () => {
    for (const cj of byKind('CronJob')) {
      const spec = cj.spec.jobTemplate.spec.template.spec;
      expect(spec.restartPolicy).toBe('Never');
      expect(spec.containers[0].command).toContain('services/ingest/src/cli.ts');
      expect(['sync', 'fetch', 'backfill']).toContain(spec.containers[0].args[0]);
      expect(cj.spec.concurrencyPolicy).toBe('Forbid');
    }
  });

  it("sizes the gateway's SSE stream caps within its memory limit (docs/reliability.md)", () => {
    for (const d of byKind('Deployment').filter(
      (o) => o.spec.template.metadata.labels['app.kubernetes.io/component'] === 'gateway',
    )) {
      const c = d.spec.template.spec.containers[0];
      const env = new Map((c.env as { name: string; value?: string }[]).map((e) => [e.name, e.value]));
      const maxStreams = Number(env.get('SSE_MAX_STREAMS'));
      const perClient = Number(env.get('SSE_MAX_STREAMS_PER_CLIENT'));
      expect(maxStreams).toBeGreaterThan(0);
      expect(perClient).toBeGreaterThan(0);
      expect(perClient).toBeLessThanOrEqual(maxStreams);
      // Each stream may hold SSE_MAX_UNSENT_BYTES (256 KiB) plus an event and its socket's objects
      // (~280 KiB in all), beside the response cache (CACHE_MAX_BYTES, 128 MiB) and ~100 MiB for the process.
      const limit = c.resources.limits.memory as string;
      const mib = 1024 * 1024;
      const limitBytes = /^\d+Gi$/.test(limit) ? parseInt(limit, 10) * 1024 * mib : parseInt(limit, 10) * mib;
      expect(limit).toMatch(/^\d+(Mi|Gi)$/);
      expect(maxStreams * 280 * 1024 + 128 * mib + 100 * mib, `${maxStreams} streams in ${limit}`).toBeLessThan(
        limitBytes,
      );
    }
  });

  it("keeps query strings (api_key, mail-link tokens) out of ingress-nginx's access log unless its format leaves them out", () => {
    const values = parse(readFileSync(path.join(chartDir, valuesFile), 'utf8')) as {
      ingress?: { accessLog?: { enabled?: boolean } };
    };
    const logged = values.ingress?.accessLog?.enabled === true;
    for (const ing of byKind('Ingress')) {
      const a = (ing.metadata.annotations ?? {}) as Record<string, string>;
      if (logged) expect(a['nginx.ingress.kubernetes.io/enable-access-log'], ing.metadata.name).toBeUndefined();
      else expect(a['nginx.ingress.kubernetes.io/enable-access-log'], ing.metadata.name).toBe('false');
      // Never through a snippet (often disabled by the controller, and a risk of its own).
      expect(Object.keys(a).filter((k) => k.endsWith('-snippet'))).toEqual([]);
    }
  });

  it('never gives the sync jobs the admin token (they parse internet data; the ingest CLI does not use it)', () => {
    const values = parse(readFileSync(path.join(chartDir, valuesFile), 'utf8')) as {
      secrets?: { keys?: { adminToken?: string } };
    };
    const adminKey = values.secrets?.keys?.adminToken ?? 'admin-token';
    for (const cj of byKind('CronJob')) {
      for (const c of cj.spec.jobTemplate.spec.template.spec.containers) {
        const env = (c.env ?? []) as { name: string; valueFrom?: { secretKeyRef?: { key: string } } }[];
        expect(env.map((e) => e.name)).not.toContain('ADMIN_TOKEN');
        expect(env.map((e) => e.name)).not.toContain('ADMIN_URL');
        expect(env.filter((e) => e.valueFrom?.secretKeyRef?.key === adminKey)).toEqual([]);
        // Nor the whole Secret at once.
        for (const from of c.envFrom ?? []) expect(from.secretRef, cj.metadata.name).toBeUndefined();
      }
    }
    // The admin API itself keeps it.
    for (const d of byKind('Deployment').filter(
      (o) => o.spec.template.metadata.labels['app.kubernetes.io/component'] === 'accounts',
    )) {
      const env = d.spec.template.spec.containers[0].env as { name: string }[];
      expect(env.map((e) => e.name)).toContain('ADMIN_TOKEN');
    }
  });

  it("runs `sync` on the publishers' release schedules, in their time zone, with the API keys by Secret reference", () => {
    const objects = renderChart('ci/default-values.yaml', release, namespace);
    const jobs = objects.filter((o) => o.kind === 'CronJob');
    const rendered = jobs.map((cj) => ({
      name: cj.metadata.labels['commodity-data.io/schedule'],
      schedule: cj.spec.schedule,
      timeZone: cj.spec.timeZone,
      source: cj.spec.jobTemplate.spec.template.spec.containers[0].args.slice(0, 3).join(' '),
    }));
    // The same lines the schedule spec checks against every release of 2026 and 2027, each on its clock.
    expect(rendered).toEqual(
      SYNC_SCHEDULES.map((s) => ({
        name: s.name,
        schedule: s.schedule,
        timeZone: s.timeZone ?? 'America/New_York',
        source: `sync --source ${s.source}`,
      })),
    );
    for (const cj of jobs) {
      const env = cj.spec.jobTemplate.spec.template.spec.containers[0].env as {
        name: string;
        valueFrom?: { secretKeyRef: { name: string; key: string; optional?: boolean } };
      }[];
      for (const [name, key] of [
        ['EIA_API_KEY', 'eia-api-key'],
        ['NASS_API_KEY', 'nass-api-key'],
      ]) {
        expect(env.find((e) => e.name === name)?.valueFrom?.secretKeyRef).toMatchObject({
          name: 'commodity-data-secrets',
          key,
        });
      }
    }
  });
});

/** Values that render the chart as a throwaway install: no per-component users (the plain URLs). */
const trialArgs = [
  '--set',
  'trial=true',
  '--set',
  'nats.existingSecret=',
  '--set',
  'mongodb.existingSecret=',
  '--set',
  'redis.existingSecret=',
];

// Each case runs helm several times: generous on a loaded machine (the default is 5 s).
describe('chart specifics per value set', { timeout: 60_000 }, () => {
  const env = (objects: K8sObject[], deployment: string) => {
    const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === deployment)!;
    return d.spec.template.spec.containers[0].env as {
      name: string;
      value?: string;
      valueFrom?: { secretKeyRef: { name: string; key: string; optional?: boolean } };
    }[];
  };

  it('defaults: every service, one Deployment per projection, Ingress with TLS, JetStream replicas 1', () => {
    const objects = renderChart('ci/default-values.yaml', release, namespace);
    const deployments = objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name);
    expect(deployments.sort()).toEqual(
      [
        'accounts',
        'dashboard',
        'gateway',
        'notifier',
        'projector-catalog',
        'projector-cot',
        'projector-series',
        'projector-supply-demand',
        'query',
      ].map((n) => `cds-test-commodity-data-${n}`),
    );
    // one Deployment per projection, its name's `_` written `-` (object names take none)
    for (const p of ['catalog', 'series', 'cot', 'supply_demand']) {
      const name = `cds-test-commodity-data-projector-${p.replace('_', '-')}`;
      expect(env(objects, name)).toContainEqual({ name: 'PROJECTIONS', value: p });
    }
    const cm = objects.find((o) => o.kind === 'ConfigMap')!;
    expect(cm.data).toMatchObject({
      JETSTREAM_REPLICAS: '1',
      STREAM_REPLICAS: '1',
      DEADLETTER_REPLICAS: '1',
      MONGODB_DB: 'commodity_data',
    });
    // Least privilege by default: no shared, credential-less address; each component its own user.
    expect([cm.data.NATS_URL, cm.data.MONGODB_URL, cm.data.REDIS_URL]).toEqual([undefined, undefined, undefined]);
    expect(env(objects, 'cds-test-commodity-data-gateway').find((e) => e.name === 'NATS_URL')?.valueFrom).toEqual({
      secretKeyRef: { name: 'commodity-data-infra', key: 'nats-url-gateway' },
    });
    expect(env(objects, 'cds-test-commodity-data-gateway')).toEqual(
      expect.arrayContaining([
        { name: 'TRUST_PROXY_HOPS', value: '1' },
        { name: 'HSTS', value: 'true' },
        { name: 'PUBLIC_BASE_URL', value: 'https://cds.example.com' },
        { name: 'SSE_MAX_STREAMS', value: '500' },
        { name: 'SSE_MAX_STREAMS_PER_CLIENT', value: '50' },
      ]),
    );
    const accounts = env(objects, 'cds-test-commodity-data-accounts');
    expect(accounts.find((e) => e.name === 'ADMIN_TOKEN')?.valueFrom?.secretKeyRef).toEqual({
      name: 'commodity-data-secrets',
      key: 'admin-token',
    });
    expect(accounts).toContainEqual({ name: 'ADMIN_URL', value: 'http://127.0.0.1:8083' });
    // The sources' API keys go to the scheduled ingest runs only, optional there.
    expect(accounts.some((e) => e.name === 'EIA_API_KEY')).toBe(false);
    const job = objects.find((o) => o.kind === 'CronJob')!.spec.jobTemplate.spec.template.spec.containers[0];
    const jobEnv = job.env as { name: string; valueFrom?: { secretKeyRef: { optional?: boolean } } }[];
    expect(jobEnv.find((e) => e.name === 'EIA_API_KEY')?.valueFrom?.secretKeyRef.optional).toBe(true);
    const ingress = objects.find((o) => o.kind === 'Ingress')!;
    expect(ingress.spec.tls).toEqual([
      { hosts: ['cds.example.com', 'dashboard.cds.example.com'], secretName: 'cds-test-commodity-data-tls' },
    ]);
    expect(objects.filter((o) => o.kind === 'CronJob').length).toBe(SYNC_SCHEDULES.length);

    // The dashboard: its objects, its route, its environment, its secrets by reference only.
    const dash = 'cds-test-commodity-data-dashboard';
    for (const kind of ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'NetworkPolicy'])
      expect(
        objects.some((o) => o.kind === kind && o.metadata.name === dash),
        `${kind} ${dash}`,
      ).toBe(true);
    const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === dash)!;
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: dash });
    expect(hpa.spec).toMatchObject({ minReplicas: 2, maxReplicas: 6 });
    // On a host of its own, apart from the API reference (/docs on cds.example.com).
    expect(ingress.spec.rules[1]).toEqual({
      host: 'dashboard.cds.example.com',
      http: {
        paths: [
          { path: '/dashboard', pathType: 'Prefix', backend: { service: { name: dash, port: { name: 'http' } } } },
        ],
      },
    });
    const d = env(objects, dash);
    expect(d).toEqual(
      expect.arrayContaining([
        { name: 'PORT', value: '8084' },
        { name: 'MONGODB_DB', value: 'cds_dashboard' },
        { name: 'ADMIN_URL', value: 'http://cds-test-commodity-data-accounts:8083' },
        { name: 'PUBLIC_API_URL', value: 'https://cds.example.com/api/v1' },
        { name: 'PUBLIC_BASE_URL', value: 'https://dashboard.cds.example.com/dashboard' },
        { name: 'COOKIE_SECURE', value: 'true' },
        { name: 'TRUST_PROXY_HOPS', value: '1' },
        { name: 'MAIL_FROM', value: 'no-reply@cds.example.com' },
      ]),
    );
    const ref = (name: string) => d.find((e) => e.name === name)?.valueFrom?.secretKeyRef;
    expect(ref('ADMIN_TOKEN')).toEqual({ name: 'commodity-data-secrets', key: 'admin-token' });
    expect(ref('SESSION_SECRET')).toEqual({ name: 'commodity-data-secrets', key: 'dashboard-session-secret' });
    expect(ref('SMTP_URL')).toEqual({ name: 'commodity-data-secrets', key: 'smtp-url' });
    for (const e of d) if (/SECRET|TOKEN|SMTP_URL/.test(e.name)) expect(e.value, e.name).toBeUndefined();
    expect(d.some((e) => e.name === 'MAIL_DIR')).toBe(false);
    // MONGODB_URL and REDIS_URL come from the Secret, with the dashboard's own users.
    const dep = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === dash)!;
    expect(dep.spec.template.spec.containers[0].envFrom[0].configMapRef.name).toBe(cm.metadata.name);
    expect(ref('MONGODB_URL')).toEqual({ name: 'commodity-data-infra', key: 'mongodb-url-dashboard' });
    expect(ref('REDIS_URL')).toEqual({ name: 'commodity-data-infra', key: 'redis-url-dashboard' });
    expect(dep.spec.template.spec.containers[0].command).toContain('services/dashboard/src/main.ts');
    // The admin API is the accounts service's process; ingest runs only as CronJobs.
    const admin = objects.find(
      (o) => o.kind === 'Deployment' && o.metadata.name === 'cds-test-commodity-data-accounts',
    )!;
    expect(admin.spec.template.spec.containers[0].command).toContain('services/accounts/src/main.ts');
    // The dashboard manages webhook endpoints in the notifier's database; it never gets the private-address exemption.
    expect(d).toEqual(
      expect.arrayContaining([
        { name: 'WEBHOOKS_DB', value: 'cds_webhooks' },
        { name: 'QUERY_URL', value: 'http://cds-test-commodity-data-query:8081' },
        // The notifier's retry settings: a re-send recorded by the dashboard starts the same run of retries.
        { name: 'WEBHOOK_RETRY_BASE_MS', value: '30000' },
        { name: 'WEBHOOK_RETRY_MAX_MS', value: '3600000' },
        { name: 'WEBHOOK_RETRY_FOR_MS', value: '86400000' },
        { name: 'WEBHOOK_DISABLE_AFTER_MS', value: '259200000' },
      ]),
    );
    expect(d.some((e) => e.name === 'WEBHOOK_ALLOW_PRIVATE')).toBe(false);
    // No alert rules unless asked for.
    expect(objects.some((o) => o.kind === 'PrometheusRule')).toBe(false);
  });

  it('defaults: the gateway runs with a V8 heap limit below its memory limit (the key table at scale)', () => {
    const objects = renderChart('ci/default-values.yaml', release, namespace);
    const dep = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'cds-test-commodity-data-gateway')!;
    const c = dep.spec.template.spec.containers[0];
    expect(c.command).toEqual([
      'node',
      '--disable-warning=ExperimentalWarning',
      '--max-old-space-size=192',
      'services/gateway/src/main.ts',
    ]);
    expect(c.resources.limits.memory).toBe('384Mi');
    // The other services keep Node.js's own heap sizing.
    const query = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'cds-test-commodity-data-query')!;
    expect(query.spec.template.spec.containers[0].command.join(' ')).not.toContain('max-old-space-size');
  });

  it('defaults: the notifier as its own Deployment, metrics Service, PDB and NetworkPolicy, configured by env', () => {
    const objects = renderChart('ci/default-values.yaml', release, namespace);
    const name = 'cds-test-commodity-data-notifier';
    const of = (kind: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
    for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget', 'NetworkPolicy'])
      expect(of(kind), `${kind} ${name}`).toBeDefined();
    expect(of('HorizontalPodAutoscaler')).toBeUndefined();
    const dep = of('Deployment')!;
    expect(dep.spec.replicas).toBe(2);
    const c = dep.spec.template.spec.containers[0];
    expect(c.command).toEqual(['node', '--disable-warning=ExperimentalWarning', 'services/notifier/src/main.ts']);
    expect(c.image).toBe('commodity-data/notifier:0.1.0');
    expect(c.ports).toEqual([{ name: 'http', containerPort: 8085, protocol: 'TCP' }]);
    expect(c.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(c.resources).toEqual({ requests: { cpu: '50m', memory: '128Mi' }, limits: { cpu: '1', memory: '384Mi' } });
    expect(dep.spec.template.metadata.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '8085',
      'prometheus.io/path': '/metrics',
    });
    expect(of('Service')!.spec.ports).toEqual([{ name: 'metrics', port: 8085, targetPort: 'http', protocol: 'TCP' }]);
    const e = env(objects, name);
    expect(e).toEqual(
      expect.arrayContaining([
        { name: 'PORT', value: '8085' },
        { name: 'JETSTREAM_REPLICAS', value: '1' },
        { name: 'WEBHOOKS_DB', value: 'cds_webhooks' },
        { name: 'PUBLIC_API_ORIGIN', value: 'https://cds.example.com' },
        { name: 'DASHBOARD_URL', value: 'https://dashboard.cds.example.com/dashboard' },
        { name: 'MAIL_FROM', value: 'no-reply@cds.example.com' },
        { name: 'WEBHOOK_TIMEOUT_MS', value: '10000' },
        { name: 'WEBHOOK_MAX_RESPONSE_BYTES', value: '65536' },
        { name: 'WEBHOOK_RETRY_BASE_MS', value: '30000' },
        { name: 'WEBHOOK_RETRY_MAX_MS', value: '3600000' },
        { name: 'WEBHOOK_RETRY_FOR_MS', value: '86400000' },
        { name: 'WEBHOOK_DISABLE_AFTER_MS', value: '259200000' },
        { name: 'WEBHOOK_CONCURRENCY', value: '16' },
        { name: 'WEBHOOK_ACCOUNT_CONCURRENCY', value: '4' },
        { name: 'WEBHOOK_POLL_MS', value: '1000' },
      ]),
    );
    expect(e.find((v) => v.name === 'SMTP_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'commodity-data-secrets',
      key: 'smtp-url',
    });
    expect(e.some((v) => v.name === 'MAIL_DIR' || v.name === 'WEBHOOK_ALLOW_PRIVATE')).toBe(false);
    const cm = objects.find((o) => o.kind === 'ConfigMap')!;
    expect(cm.data).toMatchObject({ LOG_LEVEL: 'info' });
    expect(e.find((v) => v.name === 'MONGODB_URL')?.valueFrom?.secretKeyRef.key).toBe('mongodb-url-notifier');
  });

  it('production: digests, JetStream replicas 3, infrastructure URLs from Secrets, metrics scraping allowed', () => {
    const objects = renderChart('ci/production-values.yaml', release, namespace);
    const cm = objects.find((o) => o.kind === 'ConfigMap')!;
    expect(cm.data.JETSTREAM_REPLICAS).toBe('3');
    // Tracing on: every service loads the bootstrap before its own modules and exports over OTLP.
    expect(cm.data.NODE_OPTIONS).toBe('--import @cds/telemetry/register');
    expect(cm.data.OTEL_TRACES_EXPORTER).toBe('otlp');
    expect(cm.data.OTEL_SDK_DISABLED).toBeUndefined();
    expect(cm.data.NATS_URL).toBeUndefined();
    expect(cm.data.MONGODB_URL).toBeUndefined();
    const gw = env(objects, 'cds-gateway');
    expect(gw.find((e) => e.name === 'REDIS_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'cds-infra',
      key: 'redis-url-gateway',
    });
    // Least privilege: the gateway uses no MongoDB, so it has no address (nor credentials) for it.
    expect(gw.find((e) => e.name === 'MONGODB_URL')).toBeUndefined();
    expect(gw).toContainEqual({ name: 'QUERY_URL', value: 'http://cds-query:8081' });
    // Stream caps scaled with the 512Mi limit.
    expect(gw).toEqual(
      expect.arrayContaining([
        { name: 'SSE_MAX_STREAMS', value: '1000' },
        { name: 'SSE_MAX_STREAMS_PER_CLIENT', value: '100' },
      ]),
    );
    for (const pod of podTemplates(objects)) {
      expect(pod.spec.containers[0].image).toMatch(/^registry\.example\.com\/cds\/commodity-data\/[a-z]+@sha256:/);
      expect(pod.spec.imagePullSecrets).toEqual([{ name: 'registry-credentials' }]);
    }
    const series = objects.find((o) => o.metadata.name === 'cds-projector-series' && o.kind === 'Deployment')!;
    expect(series.spec.replicas).toBe(2);
    const dash = env(objects, 'cds-dashboard');
    expect(dash.find((e) => e.name === 'REDIS_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'cds-infra',
      key: 'redis-url-dashboard',
    });
    expect(dash.find((e) => e.name === 'SESSION_SECRET')?.valueFrom?.secretKeyRef).toEqual({
      name: 'cds-app',
      key: 'dashboard-session-secret',
    });
    expect(dash).toEqual(
      expect.arrayContaining([
        { name: 'PUBLIC_API_URL', value: 'https://api.commodities.example.com/api/v1' },
        { name: 'MAIL_FROM', value: 'Commodity Data <no-reply@commodities.example.com>' },
      ]),
    );
    const np = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'cds-dashboard')!;
    expect(np.spec.egress).toContainEqual({
      ports: [{ port: 465, protocol: 'TCP' }],
      to: [{ ipBlock: { cidr: '203.0.113.0/24' } }],
    });
    expect(objects.some((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'cds-projector')).toBe(true);
    // The notifier: credentials by reference, its own origins, peers of its infrastructure.
    const notifier = env(objects, 'cds-notifier');
    expect(notifier.find((e) => e.name === 'NATS_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'cds-infra',
      key: 'nats-url-notifier',
    });
    expect(notifier.find((e) => e.name === 'SMTP_URL')?.valueFrom?.secretKeyRef).toEqual({
      name: 'cds-app',
      key: 'smtp-url',
    });
    expect(notifier).toEqual(
      expect.arrayContaining([
        { name: 'JETSTREAM_REPLICAS', value: '3' },
        { name: 'PUBLIC_API_ORIGIN', value: 'https://api.commodities.example.com' },
        { name: 'DASHBOARD_URL', value: 'https://commodities.example.com/dashboard' },
        { name: 'WEBHOOK_CONCURRENCY', value: '32' },
      ]),
    );
    const notifierNp = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'cds-notifier')!;
    expect(notifierNp.spec.egress).toContainEqual({
      ports: [{ port: 4222, protocol: 'TCP' }],
      to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'nats' } } }],
    });
    expect(notifierNp.spec.ingress).toEqual([
      {
        from: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
            podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
          },
        ],
        ports: [{ port: 'http', protocol: 'TCP' }],
      },
    ]);
  });

  it('production: each component connects as its own user, and only to the servers it uses (issue #22)', () => {
    const objects = renderChart('ci/production-values.yaml', release, namespace);
    const infraKeys = (e: ReturnType<typeof env>) =>
      Object.fromEntries(
        e
          .filter((v) => ['NATS_URL', 'MONGODB_URL', 'REDIS_URL'].includes(v.name))
          .map((v) => [v.name, `${v.valueFrom?.secretKeyRef.name}/${v.valueFrom?.secretKeyRef.key}`]),
      );
    expect(infraKeys(env(objects, 'cds-gateway'))).toEqual({
      NATS_URL: 'cds-infra/nats-url-gateway',
      REDIS_URL: 'cds-infra/redis-url-gateway',
    });
    expect(infraKeys(env(objects, 'cds-query'))).toEqual({
      NATS_URL: 'cds-infra/nats-url-query',
      MONGODB_URL: 'cds-infra/mongodb-url-query',
    });
    for (const p of ['catalog', 'series', 'cot', 'supply-demand']) {
      expect(infraKeys(env(objects, `cds-projector-${p}`))).toEqual({
        NATS_URL: 'cds-infra/nats-url-projector',
        MONGODB_URL: 'cds-infra/mongodb-url-projector',
      });
    }
    // The admin API is the only holder of the NATS user that may publish key events.
    expect(infraKeys(env(objects, 'cds-accounts'))).toEqual({ NATS_URL: 'cds-infra/nats-url-admin' });
    expect(infraKeys(env(objects, 'cds-dashboard'))).toEqual({
      MONGODB_URL: 'cds-infra/mongodb-url-dashboard',
      REDIS_URL: 'cds-infra/redis-url-dashboard',
    });
    expect(infraKeys(env(objects, 'cds-notifier'))).toEqual({
      NATS_URL: 'cds-infra/nats-url-notifier',
      MONGODB_URL: 'cds-infra/mongodb-url-notifier',
    });
    // The scheduled runs, which parse data from the internet, publish data only.
    const jobs = objects.filter((o) => o.kind === 'CronJob');
    expect(jobs.length).toBeGreaterThan(0);
    for (const cj of jobs) {
      expect(infraKeys(cj.spec.jobTemplate.spec.template.spec.containers[0].env)).toEqual({
        NATS_URL: 'cds-infra/nats-url-ingest',
      });
    }
    // No shared, credential-less URL beside them.
    const cm = objects.find((o) => o.kind === 'ConfigMap')!;
    expect([cm.data.NATS_URL, cm.data.MONGODB_URL, cm.data.REDIS_URL]).toEqual([undefined, undefined, undefined]);
  });

  it('Redis Sentinel: redis.sentinels and redis.sentinelName reach the pods as REDIS_SENTINELS and REDIS_SENTINEL_NAME', () => {
    const helm = (...set: string[]) => helmTemplate('ci/production-values.yaml', release, namespace, set);
    const sentinels = ['redis-sentinel-0.redis:26379', 'redis-sentinel-1.redis:26379', 'redis-sentinel-2.redis:26379'];
    const r = helm(
      '--set-json',
      `redis.sentinels=${JSON.stringify(sentinels)}`,
      '--set',
      'redis.sentinelName=mymaster',
    );
    expect(r.status, r.stderr).toBe(0);
    const cm = parseManifests(r.stdout, 'sentinel values').find((o) => o.kind === 'ConfigMap')!;
    expect(cm.data).toMatchObject({ REDIS_SENTINELS: sentinels.join(','), REDIS_SENTINEL_NAME: 'mymaster' });
    // The Redis users still come from the Secret: with sentinels REDIS_URL carries only the credentials.
    expect(cm.data.REDIS_URL).toBeUndefined();
    // The sentinels' own password (N8): from the same Secret, by reference, to the Redis users only.
    const sentinelObjects = parseManifests(r.stdout, 'sentinel values');
    for (const name of ['cds-gateway', 'cds-dashboard']) {
      expect(
        env(sentinelObjects, name).find((e) => e.name === 'REDIS_SENTINEL_PASSWORD'),
        name,
      ).toEqual({
        name: 'REDIS_SENTINEL_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'cds-infra', key: 'redis-sentinel-password' } },
      });
    }
    for (const name of ['cds-query', 'cds-accounts', 'cds-notifier', 'cds-projector-series'])
      expect(
        env(sentinelObjects, name).some((e) => e.name === 'REDIS_SENTINEL_PASSWORD'),
        name,
      ).toBe(false);
    expect(JSON.stringify(sentinelObjects.filter((o) => o.kind === 'ConfigMap'))).not.toContain('SENTINEL_PASSWORD');
    // Without sentinels (the default) nothing changes: REDIS_URL names the server.
    const plainObjects = renderChart('ci/production-values.yaml', release, namespace);
    const plain = plainObjects.find((o) => o.kind === 'ConfigMap')!;
    expect([plain.data.REDIS_SENTINELS, plain.data.REDIS_SENTINEL_NAME]).toEqual([undefined, undefined]);
    expect(env(plainObjects, 'cds-gateway').some((e) => e.name === 'REDIS_SENTINEL_PASSWORD')).toBe(false);
    // Another key of the Secret may hold it; an empty key is refused (sentinels without a password).
    const otherKey = helm(
      '--set-json',
      `redis.sentinels=${JSON.stringify(sentinels)}`,
      '--set',
      'redis.sentinelPasswordKey=sentinel-pw',
    );
    expect(otherKey.status, otherKey.stderr).toBe(0);
    expect(otherKey.stdout).toContain('key: sentinel-pw');
    const noKey = helm(
      '--set-json',
      `redis.sentinels=${JSON.stringify(sentinels)}`,
      '--set',
      'redis.sentinelPasswordKey=',
    );
    expect(noKey.status).not.toBe(0);
    expect(noKey.stderr).toContain('/redis/sentinelPasswordKey');
    // The schema refuses an address without a port and an empty name.
    const noPort = helm('--set-json', 'redis.sentinels=["redis-sentinel-0.redis"]');
    expect(noPort.status).not.toBe(0);
    expect(noPort.stderr).toContain('/redis/sentinels/0');
    const noName = helm('--set', 'redis.sentinelName=');
    expect(noName.status).not.toBe(0);
    expect(noName.stderr).toContain('/redis/sentinelName');
  });

  it('Redis Cluster: redis.clusterNodes reach the pods as REDIS_CLUSTER_NODES, the dashboard may reach their ports, and Sentinel with Cluster is refused', () => {
    const nodes = ['redis-cluster-0.redis:6379', 'redis-cluster-1.redis:6380', 'redis-cluster-2.redis:6379'];
    const r = helmTemplate('ci/default-values.yaml', release, namespace, [
      '--set-json',
      `redis.clusterNodes=${JSON.stringify(nodes)}`,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const objects = parseManifests(r.stdout, 'redis cluster values');
    const cm = objects.find((o) => o.kind === 'ConfigMap')!;
    expect(cm.data).toMatchObject({ REDIS_CLUSTER_NODES: nodes.join(',') });
    expect(cm.data.REDIS_SENTINELS).toBeUndefined();
    const pods = podTemplates(objects);
    const dashboard = pods.find((p) => p.labels['app.kubernetes.io/component'] === 'dashboard')!;
    const egress = objects
      .filter((o) => o.kind === 'NetworkPolicy' && selectorMatches(o.spec.podSelector, dashboard.labels))
      .flatMap((np) => (np.spec.egress ?? []) as EgressRule[]);
    expect(egressAllows(egress, '10.0.3.9', 6380)).toBe(true);
    expect(egressAllows(egress, '10.0.3.9', 6381)).toBe(false);
    // Without cluster nodes (the default) there is no REDIS_CLUSTER_NODES at all.
    const plain = renderChart('ci/default-values.yaml', release, namespace).find((o) => o.kind === 'ConfigMap')!;
    expect(plain.data.REDIS_CLUSTER_NODES).toBeUndefined();
    // An address without a port, and both Sentinel and Cluster, are refused by the schema.
    const noPort = helmTemplate('ci/default-values.yaml', release, namespace, [
      '--set-json',
      'redis.clusterNodes=["redis-cluster-0.redis"]',
    ]);
    expect(noPort.status).not.toBe(0);
    expect(noPort.stderr).toContain('/redis/clusterNodes/0');
    const both = helmTemplate('ci/default-values.yaml', release, namespace, [
      '--set-json',
      `redis.clusterNodes=${JSON.stringify(nodes)}`,
      '--set-json',
      'redis.sentinels=["redis-sentinel-0.redis:26379"]',
    ]);
    expect(both.status).not.toBe(0);
    expect(both.stderr).toContain('/redis/clusterNodes');
  });

  it('cluster values: a NATS server list, Redis Sentinel and 3 replicas reach the pods; the dashboard may reach the sentinels (issue #27)', () => {
    const natsServers = ['nats://nats-0.nats:4222', 'nats://nats-1.nats:4222', 'nats://nats-2.nats:4222'];
    const sentinels = ['redis-sentinel-0.redis:26379', 'redis-sentinel-1.redis:26379', 'redis-sentinel-2.redis:26379'];
    const r = helmTemplate('ci/default-values.yaml', release, namespace, [
      ...trialArgs,
      '--set',
      `nats.url=${natsServers.join('\\,')}`,
      '--set',
      'nats.jetstreamReplicas=3',
      '--set-json',
      `redis.sentinels=${JSON.stringify(sentinels)}`,
      ...['gateway', 'query'].flatMap((s) => [
        '--set',
        `services.${s}.autoscaling.enabled=false`,
        '--set',
        `services.${s}.replicaCount=3`,
      ]),
    ]);
    expect(r.status, r.stderr).toBe(0);
    const objects = parseManifests(r.stdout, 'cluster values');
    const cm = objects.find((o) => o.kind === 'ConfigMap')!;
    expect(cm.data).toMatchObject({
      NATS_URL: natsServers.join(','),
      JETSTREAM_REPLICAS: '3',
      STREAM_REPLICAS: '3',
      DEADLETTER_REPLICAS: '3',
      REDIS_SENTINELS: sentinels.join(','),
      REDIS_SENTINEL_NAME: 'cds-redis',
    });
    const component = (o: K8sObject) => o.metadata.labels?.['app.kubernetes.io/component'];
    for (const name of ['gateway', 'query', 'dashboard']) {
      const d = objects.find((o) => o.kind === 'Deployment' && component(o) === name)!;
      // Every container reads the ConfigMap whole: the server list and the sentinels included.
      const container = d.spec.template.spec.containers[0] as { envFrom: { configMapRef?: { name: string } }[] };
      expect(container.envFrom.map((e) => e.configMapRef?.name)).toContain(cm.metadata.name);
      if (name !== 'dashboard') expect(d.spec.replicas, name).toBe(3);
    }
    expect(objects.filter((o) => o.kind === 'HorizontalPodAutoscaler' && component(o) === 'gateway')).toEqual([]);
    // The policies: the gateway's and the dashboard's egress name the sentinels' port, nobody else's.
    const pods = podTemplates(objects);
    const policiesOf = (name: string) => {
      const pod = pods.find((p) => p.labels['app.kubernetes.io/component'] === name)!;
      return objects.filter((o) => o.kind === 'NetworkPolicy' && selectorMatches(o.spec.podSelector, pod.labels));
    };
    for (const name of ['gateway', 'dashboard']) {
      const egress = policiesOf(name).flatMap((np) => (np.spec.egress ?? []) as EgressRule[]);
      expect(egressAllows(egress, '10.0.3.7', 26379), name).toBe(true);
      expect(egressAllows(egress, '10.0.3.7', 6379), name).toBe(true);
      expect(egressAllows(egress, '10.0.3.7', 26380), name).toBe(false);
    }
    for (const name of ['query', 'projector', 'accounts', 'notifier']) {
      const egress = policiesOf(name).flatMap((np) => (np.spec.egress ?? []) as EgressRule[]);
      expect(egressAllows(egress, '10.0.3.7', 26379), name).toBe(false);
    }
    // Without sentinels the dashboard has no rule for 26379.
    const plain = renderChart('ci/default-values.yaml', release, namespace);
    const plainPod = podTemplates(plain).find((p) => p.labels['app.kubernetes.io/component'] === 'dashboard')!;
    const plainEgress = plain
      .filter((o) => o.kind === 'NetworkPolicy' && selectorMatches(o.spec.podSelector, plainPod.labels))
      .flatMap((np) => (np.spec.egress ?? []) as EgressRule[]);
    expect(egressAllows(plainEgress, '10.0.3.7', 6379)).toBe(true);
    expect(egressAllows(plainEgress, '10.0.3.7', 26379)).toBe(false);
  });

  it('production with sentinels on their own ports: the dashboard reaches each port, at the Redis peers only', () => {
    const sentinels = ['s0.redis:26379', 's1.redis:26379', 's2.redis:26380'];
    const r = helmTemplate('ci/production-values.yaml', release, namespace, [
      '--set-json',
      `redis.sentinels=${JSON.stringify(sentinels)}`,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const objects = parseManifests(r.stdout, 'production with sentinels');
    const pod = podTemplates(objects).find((p) => p.labels['app.kubernetes.io/component'] === 'dashboard')!;
    const rules = objects
      .filter((o) => o.kind === 'NetworkPolicy' && selectorMatches(o.spec.podSelector, pod.labels))
      .flatMap((np) => (np.spec.egress ?? []) as EgressRule[]);
    const toRedis = rules.find((rule) => rule.ports.some((p) => p.port === 6379))!;
    const toSentinels = rules.filter((rule) => rule.ports.some((p) => p.port === 26379 || p.port === 26380));
    expect(toSentinels).toHaveLength(1);
    expect(toSentinels[0]!.ports).toEqual([
      { port: 26379, protocol: 'TCP' },
      { port: 26380, protocol: 'TCP' },
    ]);
    expect(toSentinels[0]!.to).toEqual(toRedis.to);
    expect(toRedis.to).toBeDefined();
  });

  it('production: the alert rules of notifications, on metrics the notifier and the gateways export', () => {
    const objects = renderChart('ci/production-values.yaml', release, namespace);
    const rules = objects.filter((o) => o.kind === 'PrometheusRule');
    expect(rules).toHaveLength(1);
    const rule = rules[0]!;
    expect(rule.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rule.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack', team: 'platform' });
    const alerts = (rule.spec.groups as { rules: { alert: string; expr: string; for: string; labels: object }[] }[])
      .flatMap((g) => g.rules)
      .map((r) => [r.alert, r] as const);
    const byName = Object.fromEntries(alerts);
    expect(Object.keys(byName).sort()).toEqual([
      'CdsActiveFreeKeysNearCeiling',
      'CdsFreeKeyCeilingReached',
      'CdsGatewayActiveKeysHigh',
      'CdsKeyCreationsRefused',
      'CdsNotifierChangesBehind',
      'CdsSseSlowConsumerClosesRising',
      'CdsWebhookFailureRatioHigh',
      'CdsWebhookQueueAgeHigh',
    ]);
    // The key table: a gateway's active keys near the configured ceiling, the admin API's Free keys near
    // its own, and refused creations by reason.
    expect(byName.CdsGatewayActiveKeysHigh!.expr).toBe('max(cds_gateway_active_keys) > 800000');
    expect(byName.CdsActiveFreeKeysNearCeiling!.expr).toBe(
      'max(cds_admin_active_free_keys) / max(cds_admin_free_key_ceiling) > 0.8',
    );
    expect(byName.CdsFreeKeyCeilingReached!.expr).toBe(
      'sum(increase(cds_admin_key_creations_refused_total{reason="free_key_ceiling"}[15m])) > 0',
    );
    expect(byName.CdsKeyCreationsRefused!.expr).toBe(
      'sum by (reason) (increase(cds_admin_key_creations_refused_total{reason!="free_key_ceiling"}[15m])) > 20',
    );
    expect(byName.CdsWebhookQueueAgeHigh!.expr).toBe('max(cds_notifier_queue_age_seconds) > 300');
    expect(byName.CdsWebhookFailureRatioHigh!.expr).toMatch(
      /cds_notifier_attempts_total\{outcome!="delivered"\}\[15m\][\s\S]*\/ sum\(rate\(cds_notifier_attempts_total\[15m\]\)\) > 0\.5$/,
    );
    expect(byName.CdsNotifierChangesBehind!.expr).toMatch(/^max\(cds_notifier_pending_messages\) > 100\nor \(/);
    expect(byName.CdsNotifierChangesBehind!.expr).toContain('cds_projector_change_records_total{outcome="stored"}');
    expect(byName.CdsNotifierChangesBehind!.expr).toContain('cds_notifier_changes_total[15m]');
    expect(byName.CdsSseSlowConsumerClosesRising!.expr).toContain(
      'cds_gateway_sse_streams_closed_total{reason="slow_consumer"}',
    );
    for (const [name, r] of alerts) {
      // A refused creation is news at once; the others must last before they page.
      if (name !== 'CdsKeyCreationsRefused' && name !== 'CdsFreeKeyCeilingReached')
        expect(r.for, name).toMatch(/^\d+m$/);
      expect(r.labels).toEqual({ severity: 'warning' });
    }
    // The thresholds are values.
    const tuned = helmTemplate('ci/production-values.yaml', release, namespace, [
      '--set',
      'metrics.prometheusRule.activeKeysWarning=250000',
      // --set reads 0.5 as a string, which the schema refuses.
      '--set-json',
      'metrics.prometheusRule.activeFreeKeysWarningRatio=0.5',
      '--set',
      'apiKeys.maxActiveFreeKeys=20000',
    ]);
    expect(tuned.status, tuned.stderr).toBe(0);
    expect(tuned.stdout).toContain('expr: max(cds_gateway_active_keys) > 250000');
    expect(tuned.stdout).toContain('expr: max(cds_admin_active_free_keys) / max(cds_admin_free_key_ceiling) > 0.5');
    // The ceiling itself reaches the admin API (never the sync jobs, which create no keys).
    const admin = renderChart('ci/production-values.yaml', release, namespace).find(
      (o) => o.kind === 'Deployment' && o.metadata.name.endsWith('-accounts'),
    );
    const env = (admin!.spec.template.spec.containers[0].env as { name: string; value?: string }[]) ?? [];
    expect(env.find((e) => e.name === 'MAX_ACTIVE_FREE_KEYS')?.value).toBe('500000');
    expect(tuned.stdout).toContain('value: "20000"');
    // So do the dashboard session keys' ceiling and sweep, and the schema bounds the sweep.
    expect(env.find((e) => e.name === 'MAX_ACTIVE_FREE_SESSION_KEYS')?.value).toBe('50000');
    expect(env.find((e) => e.name === 'SESSION_KEY_SWEEP_MS')?.value).toBe('5000');
    const tooRare = helmTemplate('ci/production-values.yaml', release, namespace, [
      '--set',
      'apiKeys.sessionKeySweepMs=7200000',
    ]);
    expect(tooRare.status).not.toBe(0);
    expect(tooRare.stderr).toContain('sessionKeySweepMs');
  });

  it('least privilege by default: without per-component users rendering fails with what to set (#2)', () => {
    const message = 'least privilege: set nats.existingSecret';
    // The chart's own defaults (values.yaml alone).
    const bare = run(requireTool('helm'), [
      'template',
      release,
      chartDir,
      '--namespace',
      namespace,
      '--kube-version',
      kubeVersion,
    ]);
    expect(bare.status).not.toBe(0);
    expect(bare.stderr).toContain(message);
    for (const part of [
      'nats.existingSecret (a Secret with keys nats-url-admin, nats-url-gateway, nats-url-ingest, nats-url-notifier, nats-url-projector, nats-url-query)',
      'mongodb.existingSecret (a Secret with keys mongodb-url-dashboard, mongodb-url-notifier, mongodb-url-projector, mongodb-url-query)',
      'redis.existingSecret (a Secret with keys redis-url-dashboard, redis-url-gateway)',
      'Or set trial=true',
    ])
      expect(bare.stderr).toContain(part);
    // One Secret missing: that one is named, and only it.
    const noMongo = helmTemplate('ci/default-values.yaml', release, namespace, ['--set', 'mongodb.existingSecret=']);
    expect(noMongo.status).not.toBe(0);
    expect(noMongo.stderr).toContain('least privilege: set mongodb.existingSecret');
    expect(noMongo.stderr).not.toContain('set nats.existingSecret');
    expect(noMongo.stderr).not.toContain('redis.existingSecret (a Secret');
    // A server no enabled component uses needs no Secret: without the gateway and the dashboard, no Redis.
    const noRedisUsers = helmTemplate('ci/default-values.yaml', release, namespace, [
      '--set',
      'redis.existingSecret=',
      '--set',
      'services.gateway.enabled=false',
      '--set',
      'services.dashboard.enabled=false',
    ]);
    expect(noRedisUsers.status, noRedisUsers.stderr).toBe(0);
  });

  it('trial: true renders a throwaway install on the plain URLs, and NOTES warns for NATS, MongoDB and Redis', () => {
    const r = run(requireTool('helm'), [
      'template',
      release,
      chartDir,
      '--namespace',
      namespace,
      '--kube-version',
      kubeVersion,
      '--set',
      'trial=true',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const cm = parseManifests(r.stdout, 'trial').find((o) => o.kind === 'ConfigMap')!;
    expect(cm.data).toMatchObject({
      NATS_URL: 'nats://nats:4222',
      MONGODB_URL: 'mongodb://mongodb:27017/?replicaSet=rs0',
      REDIS_URL: 'redis://redis:6379',
    });
    const notes = renderNotes('ci/default-values.yaml', trialArgs);
    expect(notes).toContain('WARNING (trial: true): NATS, MongoDB, Redis without per-component users');
    expect(notes).toMatch(/gateway could publish\s+key events/);
    // Each server is named on its own when only it lacks users.
    for (const [infra, label] of [
      ['nats', 'NATS'],
      ['mongodb', 'MongoDB'],
      ['redis', 'Redis'],
    ] as const) {
      const one = renderNotes('ci/default-values.yaml', ['--set', 'trial=true', '--set', `${infra}.existingSecret=`]);
      expect(one, infra).toContain(`WARNING (trial: true): ${label} without per-component users`);
    }
    // With every Secret set, no warning even in trial.
    expect(renderNotes('ci/default-values.yaml', ['--set', 'trial=true'])).not.toContain('WARNING (trial');
    // Sentinels without the Redis Secret have no password: said too.
    const sentinels = renderNotes('ci/default-values.yaml', [
      ...trialArgs,
      '--set-json',
      'redis.sentinels=["s0.redis:26379"]',
    ]);
    expect(sentinels).toContain('The Redis sentinels get no password either');
  });

  it('refuses credentials in the plain URLs, which would land in the ConfigMap (#2)', () => {
    const refused = {
      'nats.url': ['nats://gateway:pw@nats:4222', 'nats://nats-0:4222,nats://admin@nats-1:4222', 'tls://u:p@nats:4222'],
      'mongodb.url': ['mongodb://cds:pw@mongodb:27017/?replicaSet=rs0', 'mongodb+srv://cds@cluster0.example.net/db'],
      'redis.url': ['redis://:pw@redis:6379', 'rediss://gateway:pw@redis:6380/0', 'redis://default@redis'],
    };
    for (const [key, urls] of Object.entries(refused)) {
      for (const url of urls) {
        const r = helmTemplate('ci/default-values.yaml', release, namespace, [
          ...trialArgs,
          '--set-string',
          `${key}=${url.replaceAll(',', '\\,')}`,
        ]);
        expect(r.status, `${key}=${url} was accepted`).not.toBe(0);
        expect(r.stderr).toContain(`/${key.replace('.', '/')}`);
      }
    }
    // The same servers without credentials render, options and server lists included.
    const accepted = {
      'nats.url': 'tls://nats-0:4222,tls://nats-1:4222',
      'mongodb.url': 'mongodb://mongodb-0:27017,mongodb-1:27017/commodity?replicaSet=rs0&appName=cds@v1',
      'redis.url': 'rediss://redis:6380/0',
    };
    const r = helmTemplate('ci/default-values.yaml', release, namespace, [
      ...trialArgs,
      ...Object.entries(accepted).flatMap(([key, url]) => ['--set-string', `${key}=${url.replaceAll(',', '\\,')}`]),
    ]);
    expect(r.status, r.stderr).toBe(0);
    const cm = parseManifests(r.stdout, 'plain URLs').find((o) => o.kind === 'ConfigMap')!;
    expect([cm.data.NATS_URL, cm.data.MONGODB_URL, cm.data.REDIS_URL]).toEqual(Object.values(accepted));
  });

  it('serves the API reference and the dashboard on different origins (N9)', () => {
    const hostsOf = (objects: K8sObject[]) => {
      const byHost = new Map<string, { path: string; component: string }[]>();
      for (const ing of objects.filter((o) => o.kind === 'Ingress'))
        for (const rule of ing.spec.rules as {
          host: string;
          http: { paths: { path: string; backend: { service: { name: string } } }[] };
        }[])
          for (const p of rule.http.paths) {
            const svc = objects.find((o) => o.kind === 'Service' && o.metadata.name === p.backend.service.name)!;
            byHost.set(rule.host, [
              ...(byHost.get(rule.host) ?? []),
              { path: p.path, component: svc.spec.selector['app.kubernetes.io/component'] },
            ]);
          }
      return byHost;
    };
    for (const file of ['ci/default-values.yaml', 'ci/production-values.yaml']) {
      const objects = renderChart(file, release, namespace);
      const hosts = hostsOf(objects);
      const docsHosts = [...hosts].filter(([, ps]) => ps.some((p) => p.path === '/docs')).map(([h]) => h);
      const dashboardHosts = [...hosts].filter(([, ps]) => ps.some((p) => p.component === 'dashboard')).map(([h]) => h);
      expect(docsHosts.length, file).toBe(1);
      expect(dashboardHosts.length, file).toBe(1);
      expect(dashboardHosts[0], file).not.toBe(docsHosts[0]);
      // The dashboard's host serves the dashboard only.
      expect(
        hosts.get(dashboardHosts[0]!)!.map((p) => p.component),
        file,
      ).toEqual(['dashboard']);
      // Its links, cookies and the notifier's links name its own origin.
      const origin = `https://${dashboardHosts[0]}`;
      expect(
        env(
          objects,
          objects.find((o) => o.kind === 'Deployment' && o.metadata.name.endsWith('-dashboard'))!.metadata.name,
        ),
      ).toContainEqual({
        name: 'PUBLIC_BASE_URL',
        value: `${origin}/dashboard`,
      });
    }
    // An explicit host is used as given; the API's host for the dashboard is refused.
    const own = helmTemplate('ci/default-values.yaml', release, namespace, [
      '--set',
      'ingress.dashboardHostname=app.example.org',
    ]);
    expect(own.status, own.stderr).toBe(0);
    const objects = parseManifests(own.stdout, 'dashboardHostname');
    expect(hostsOf(objects).get('app.example.org')).toEqual([{ path: '/dashboard', component: 'dashboard' }]);
    expect(objects.find((o) => o.kind === 'Ingress')!.spec.tls[0].hosts).toEqual([
      'cds.example.com',
      'app.example.org',
    ]);
    expect(env(objects, 'cds-test-commodity-data-notifier')).toContainEqual({
      name: 'DASHBOARD_URL',
      value: 'https://app.example.org/dashboard',
    });
    const same = helmTemplate('ci/default-values.yaml', release, namespace, [
      '--set',
      'ingress.dashboardHostname=cds.example.com',
    ]);
    expect(same.status).not.toBe(0);
    expect(same.stderr).toContain('ingress.dashboardHostname must differ from ingress.hostname');
    // Without the dashboard there is no second host.
    const none = helmTemplate('ci/default-values.yaml', release, namespace, [
      '--set',
      'services.dashboard.enabled=false',
    ]);
    expect(none.status, none.stderr).toBe(0);
    expect([...hostsOf(parseManifests(none.stdout, 'no dashboard')).keys()]).toEqual(['cds.example.com']);
  });

  it('production: each workload reaches its servers at their peers only, the collector included (#16)', () => {
    const objects = renderChart('ci/production-values.yaml', release, namespace);
    const egressOf = (name: string) =>
      objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === name)!.spec.egress as EgressRule[];
    const ns = (name: string) => [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } }];
    const rule = (port: number, to: unknown) => ({ ports: [{ port, protocol: 'TCP' }], to });
    expect(egressOf('cds-gateway')).toEqual(
      expect.arrayContaining([rule(4222, ns('nats')), rule(6379, ns('redis')), rule(4318, ns('observability'))]),
    );
    expect(egressOf('cds-query')).toEqual(expect.arrayContaining([rule(4222, ns('nats')), rule(27017, ns('mongodb'))]));
    expect(egressOf('cds-projector')).toEqual(
      expect.arrayContaining([rule(4222, ns('nats')), rule(27017, ns('mongodb'))]),
    );
    expect(egressOf('cds-accounts')).toEqual(expect.arrayContaining([rule(4222, ns('nats'))]));
    expect(egressOf('cds-ingest-job')).toEqual(expect.arrayContaining([rule(4222, ns('nats'))]));
    // Every rule of the data path names its peers, but DNS and the sync jobs' public https.
    for (const name of ['cds-gateway', 'cds-query', 'cds-projector', 'cds-accounts', 'cds-ingest-job'])
      for (const r of egressOf(name))
        if (!r.ports.some((p) => p.port === 53 || p.port === 443)) expect(r.to, name).toBeDefined();
    // The collector's port comes from otel.endpoint; without one in the URL, from its scheme.
    const https = helmTemplate('ci/production-values.yaml', release, namespace, [
      '--set',
      'otel.endpoint=https://otlp.example.com',
    ]);
    expect(https.status, https.stderr).toBe(0);
    const gateway = parseManifests(https.stdout, 'otel https').find(
      (o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'cds-gateway',
    )!;
    expect(gateway.spec.egress).toContainEqual(rule(443, ns('observability')));
  });

  it('on upgrade, NOTES says what charts 0.5 to 0.9 changed for installs that relied on the old defaults', () => {
    const notes = renderNotes('ci/production-values.yaml', ['--is-upgrade']);
    expect(notes).toContain('Upgrading to chart 0.5');
    expect(notes).toContain('https://commodities.example.com/dashboard');
    expect(renderNotes('ci/production-values.yaml')).not.toContain('Upgrading to chart 0.5');
    // Chart 0.6 renamed the admin API's workload: NOTES tells an upgrade where its values went.
    expect(notes).toContain('Upgrading to chart 0.6');
    expect(notes).toContain('services.ingest move to\nservices.accounts');
    // Chart 0.7 adds the COT checks bucket to the NATS rights: NOTES says to load them.
    expect(notes).toContain('Upgrading to chart 0.7');
    expect(notes).toContain('CDS_COT_CHECKS');
    // Chart 0.8 adds the supply_demand projection, whose durable consumer needs the new NATS rights.
    expect(notes).toContain('Upgrading to chart 0.8');
    expect(notes).toContain('projector-supply_demand');
    // Chart 0.9 adds the release ledger and incidents buckets to the NATS rights.
    expect(notes).toContain('Upgrading to chart 0.9');
    expect(notes).toContain('CDS_RELEASES');
    const chart = parse(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8')) as { version: string };
    expect(chart.version).toMatch(/^0\.9\./);
  });

  it('minimal: no Ingress, NetworkPolicy, HPA, PDB or CronJob; fixed single replicas', () => {
    const objects = renderChart('ci/minimal-values.yaml', release, namespace);
    const kinds = new Set(objects.map((o) => o.kind));
    for (const k of ['Ingress', 'NetworkPolicy', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'CronJob'])
      expect(kinds.has(k)).toBe(false);
    for (const d of objects.filter((o) => o.kind === 'Deployment')) expect(d.spec.replicas).toBe(1);
    // No SMTP relay required: SMTP_URL optional, mails written under the writable /tmp.
    const dash = env(objects, 'cds-test-commodity-data-dashboard');
    expect(dash.find((e) => e.name === 'SMTP_URL')?.valueFrom?.secretKeyRef.optional).toBe(true);
    expect(dash).toContainEqual({ name: 'MAIL_DIR', value: '/tmp/mail' });
    expect(dash).toContainEqual({ name: 'TRUST_PROXY_HOPS', value: '0' });
    const notifier = env(objects, 'cds-test-commodity-data-notifier');
    expect(notifier.find((e) => e.name === 'SMTP_URL')?.valueFrom?.secretKeyRef.optional).toBe(true);
    expect(notifier).toContainEqual({ name: 'MAIL_DIR', value: '/tmp/mail' });
    expect(kinds.has('PrometheusRule')).toBe(false);
  });
});
