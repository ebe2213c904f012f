// k8s/ (local-cluster infrastructure, kustomize) and skaffold.yaml: every manifest validated against the
// Kubernetes API schemas, the clusters shaped as the design says (3-node JetStream with routes, a
// 3-member MongoDB replica set, Redis), and skaffold building every service and deploying the chart.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  type K8sObject,
  parseManifests,
  podTemplates,
  renderChart,
  repoRoot,
  run,
  selectorMatches,
  validateObject,
} from './helpers.ts';

const k8sDir = path.join(repoRoot, 'k8s');
const kustomizations = (readdirSync(k8sDir, { recursive: true }) as string[])
  .filter((f) => f.endsWith('kustomization.yaml'))
  .map((f) => path.join(k8sDir, f));

/** What `kubectl kustomize` would read: the resources listed by a kustomization, recursively. */
function resourcesOf(kustomization: string): K8sObject[] {
  const dir = path.dirname(kustomization);
  const k = parse(readFileSync(kustomization, 'utf8')) as { resources?: string[] };
  return (k.resources ?? []).flatMap((r) => {
    const target = path.join(dir, r);
    if (existsSync(path.join(target, 'kustomization.yaml')))
      return resourcesOf(path.join(target, 'kustomization.yaml'));
    return parseManifests(readFileSync(target, 'utf8'), target);
  });
}

describe('k8s/ manifests', () => {
  const local = resourcesOf(path.join(k8sDir, 'overlays/local/kustomization.yaml'));
  const find = (kind: string, name: string) => local.find((o) => o.kind === kind && o.metadata.name === name);

  it('list only files that exist, in base and the local overlay', () => {
    expect(kustomizations.map((k) => path.relative(k8sDir, k)).sort()).toEqual([
      'base/kustomization.yaml',
      'overlays/local/kustomization.yaml',
    ]);
    for (const k of kustomizations) expect(() => resourcesOf(k)).not.toThrow();
  });

  it('validate against the Kubernetes API schemas', () => {
    expect(local.length).toBeGreaterThan(8);
    expect(local.flatMap(validateObject)).toEqual([]);
  });

  it('pin every image to a version, set limits, and run non-root', () => {
    for (const pod of podTemplates(local)) {
      expect(pod.spec.securityContext?.runAsNonRoot, pod.owner.metadata.name).toBe(true);
      for (const c of pod.spec.containers) {
        expect(c.image, c.name).toMatch(/^[a-z0-9./-]+:(?!latest)[0-9][A-Za-z0-9_.-]*$/);
        expect(c.resources?.limits?.memory, c.name).toBeDefined();
        expect(c.securityContext?.allowPrivilegeEscalation, c.name).toBe(false);
      }
    }
  });

  it('have every Service select pods of a workload', () => {
    for (const s of local.filter((o) => o.kind === 'Service')) {
      const selected = podTemplates(local).filter((p) => selectorMatches({ matchLabels: s.spec.selector }, p.labels));
      expect(selected.length, s.metadata.name).toBeGreaterThan(0);
    }
  });

  it('run a 3-node NATS JetStream cluster with routes to every node and fsync on every write', () => {
    const sts = find('StatefulSet', 'nats')!;
    expect(sts.spec.replicas).toBe(3);
    expect(sts.spec.serviceName).toBe('nats-headless');
    const conf: string = find('ConfigMap', 'nats-config')!.data['nats.conf'];
    for (const i of [0, 1, 2]) expect(conf).toContain(`nats://nats-${i}.nats-headless:6222`);
    expect(conf).toMatch(/jetstream \{[^}]*sync_interval: always/);
    expect(find('Service', 'nats-headless')!.spec.clusterIP).toBe('None');
  });

  it('run the nats-server release that npm start and the tests run (scripts/bootstrap.sh)', () => {
    const built = /^NATS_SERVER_VERSION=v(\S+)$/m.exec(
      readFileSync(path.join(repoRoot, 'scripts/bootstrap.sh'), 'utf8'),
    );
    expect(built?.[1]).toMatch(/^2\.\d+\.\d+$/);
    const image = find('StatefulSet', 'nats')!.spec.template.spec.containers[0].image;
    expect(image).toBe(`nats:${built![1]}-alpine`);
  });

  it('run a 3-member MongoDB replica set initiated by a Job naming every member', () => {
    const sts = find('StatefulSet', 'mongodb')!;
    expect(sts.spec.replicas).toBe(3);
    expect(sts.spec.template.spec.containers[0].args).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    const job = find('Job', 'mongodb-rs-init')!;
    const script = job.spec.template.spec.containers[0].command.join(' ');
    expect(script).toContain("rs.initiate({ _id: 'rs0'");
    for (const i of [0, 1, 2]) expect(script).toContain(`mongodb-${i}.mongodb-headless:27017`);
  });

  it('run Redis and create the Secret the chart references, from a generated, gitignored file (N10)', () => {
    expect(find('StatefulSet', 'redis')).toBeDefined();
    const overlay = parse(readFileSync(path.join(k8sDir, 'overlays/local/kustomization.yaml'), 'utf8'));
    const secret = overlay.secretGenerator.find((g: { name: string }) => g.name === 'commodity-data-secrets');
    const chartValues = parse(readFileSync(path.join(repoRoot, 'charts/commodity-data/values.yaml'), 'utf8'));
    expect(secret.name).toBe(chartValues.secrets.existingSecret);
    // No value in the repository: the generator reads the file generate-secrets.sh writes, which git ignores.
    expect(secret.literals).toBeUndefined();
    expect(secret.envs).toEqual(['secrets.env']);
    const ignored = run('git', ['check-ignore', '-q', 'k8s/overlays/local/secrets.env']);
    expect(ignored.status, 'k8s/overlays/local/secrets.env must be gitignored').toBe(0);
    const text = readFileSync(path.join(k8sDir, 'overlays/local/kustomization.yaml'), 'utf8');
    expect(text).not.toMatch(/change-me|admin-token=|session-secret=/);

    const dir = mkdtempSync(path.join(tmpdir(), 'cds-dev-secrets-'));
    try {
      const generate = (file: string, ...flags: string[]) => {
        const r = run('bash', ['k8s/overlays/local/generate-secrets.sh', ...flags, file]);
        expect(r.status, r.stderr).toBe(0);
        return Object.fromEntries(
          readFileSync(file, 'utf8')
            .trim()
            .split('\n')
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        ) as Record<string, string>;
      };
      const a = generate(path.join(dir, 'a.env'));
      const b = generate(path.join(dir, 'b.env'));
      // Every key but the SMTP URL, which a local cluster leaves out (mails go to files, smtpRequired false).
      const { smtpUrl: _smtp, ...required } = chartValues.secrets.keys as Record<string, string>;
      expect(Object.keys(a).sort()).toEqual(Object.values(required).sort());
      for (const key of ['admin-token', 'dashboard-session-secret']) {
        expect(a[key], key).toMatch(/^[0-9a-f]{64}$/);
        expect(a[key], `${key} is random per checkout`).not.toBe(b[key]);
      }
      expect(a['admin-token']).not.toBe('local-dev-admin-token-change-me');
      expect(a['dashboard-session-secret']).not.toBe('local-dev-dashboard-session-secret-change-me');
      // Readable by its owner only; kept as it is on the next render (a new session secret signs users out)...
      expect(statSync(path.join(dir, 'a.env')).mode & 0o077).toBe(0);
      expect(generate(path.join(dir, 'a.env'))).toEqual(a);
      // ...unless asked to rotate.
      expect(generate(path.join(dir, 'a.env'), '--rotate')['admin-token']).not.toBe(a['admin-token']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('give the chart values that address these services and render valid objects', () => {
    const objects = renderChart('../../k8s/overlays/local/chart-values.yaml');
    expect(objects.flatMap(validateObject)).toEqual([]);
    const cm = objects.find((o) => o.kind === 'ConfigMap')!;
    expect(new URL(cm.data.NATS_URL).hostname).toBe(find('Service', 'nats')!.metadata.name);
    expect(new URL(cm.data.REDIS_URL).hostname).toBe(find('Service', 'redis')!.metadata.name);
    expect(cm.data.MONGODB_URL).toContain('mongodb-0.mongodb-headless:27017');
    expect(cm.data.MONGODB_URL).toContain('replicaSet=rs0');
    expect(cm.data.JETSTREAM_REPLICAS).toBe(String(find('StatefulSet', 'nats')!.spec.replicas));
    // The local Secret has no smtp-url: the dashboard and the notifier must not require it.
    for (const svc of ['dashboard', 'notifier']) {
      const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name.endsWith(`-${svc}`))!;
      const smtp = d.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'SMTP_URL');
      expect(smtp.valueFrom.secretKeyRef.optional, svc).toBe(true);
    }
  });
});

describe('skaffold.yaml', () => {
  const config = parse(readFileSync(path.join(repoRoot, 'skaffold.yaml'), 'utf8'));
  const services = ['gateway', 'query', 'ingest', 'accounts', 'projector', 'dashboard', 'notifier'];
  /** Where the chart takes each image: a Deployment's under services.<name>, the ingest CronJobs' under ingestJobs. */
  const imageValues = (svc: string) => (svc === 'ingest' ? 'ingestJobs.image' : `services.${svc}.image`);
  const releasesOf = (c: { deploy?: { helm?: { releases?: unknown[] } } }) =>
    (c.deploy?.helm?.releases ?? []) as {
      chartPath: string;
      valuesFiles?: string[];
      setValueTemplates: Record<string, string>;
    }[];

  it('is a skaffold v4 Config', () => {
    expect(config.apiVersion).toMatch(/^skaffold\/v4beta\d+$/);
    expect(config.kind).toBe('Config');
  });

  it('builds one image per service from the root Dockerfile', () => {
    const artifacts = config.build.artifacts as {
      image: string;
      context: string;
      docker: { dockerfile: string; buildArgs: { SERVICE: string } };
    }[];
    expect(artifacts.map((a) => a.docker.buildArgs.SERVICE).sort()).toEqual([...services].sort());
    for (const a of artifacts) {
      expect(a.image).toBe(`commodity-data/${a.docker.buildArgs.SERVICE}`);
      expect(a.context).toBe('.');
      expect(existsSync(path.join(repoRoot, a.docker.dockerfile))).toBe(true);
      expect(existsSync(path.join(repoRoot, 'services', a.docker.buildArgs.SERVICE))).toBe(true);
    }
  });

  it('has dev and prod profiles that deploy the chart with every image and existing values files', () => {
    expect(config.profiles.map((p: { name: string }) => p.name)).toEqual(['dev', 'prod']);
    const chartValues = parse(readFileSync(path.join(repoRoot, 'charts/commodity-data/values.yaml'), 'utf8'));
    for (const c of [config, ...config.profiles]) {
      for (const release of releasesOf(c)) {
        expect(existsSync(path.join(repoRoot, release.chartPath, 'Chart.yaml'))).toBe(true);
        for (const f of release.valuesFiles ?? []) expect(existsSync(path.join(repoRoot, f)), f).toBe(true);
        for (const svc of services) {
          const key = `commodity_data_${svc}`;
          expect(release.setValueTemplates[`${imageValues(svc)}.repository`]).toBe(`{{.IMAGE_REPO_${key}}}`);
          const pin =
            release.setValueTemplates[`${imageValues(svc)}.tag`] ??
            release.setValueTemplates[`${imageValues(svc)}.digest`];
          expect(pin).toMatch(new RegExp(`^\\{\\{\\.IMAGE_(TAG|DIGEST)_${key}\\}\\}$`));
        }
        for (const key of Object.keys(release.setValueTemplates)) {
          let v: unknown = chartValues;
          for (const part of key.split('.')) v = (v as Record<string, unknown>)[part];
          expect(v, `setValueTemplates key ${key} is not a chart value`).toBeDefined();
        }
      }
    }
    const prod = config.profiles.find((p: { name: string }) => p.name === 'prod');
    expect(prod.build.local.push).toBe(true);
    expect(Object.keys(releasesOf(prod)[0]!.setValueTemplates).filter((k) => k.endsWith('.digest'))).toHaveLength(
      services.length,
    );
    const dev = config.profiles.find((p: { name: string }) => p.name === 'dev');
    expect(dev.manifests.kustomize.paths).toEqual(['k8s/overlays/local']);
    // The overlay's Secret values are generated before the render, on the developer's machine.
    expect(dev.manifests.hooks.before).toEqual([
      { host: { command: ['bash', 'k8s/overlays/local/generate-secrets.sh'], os: ['darwin', 'linux'] } },
    ]);
    expect(existsSync(path.join(repoRoot, 'k8s/overlays/local/generate-secrets.sh'))).toBe(true);
  });
});
