// Shared helpers of the deployment checks: run helm and hadolint (installed by scripts/bootstrap.sh),
// parse rendered manifests, validate them against the Kubernetes API schemas bundled by
// kubernetes-models (offline), and match label selectors the way the API server does.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from 'kubernetes-models';
import { parseAllDocuments } from 'yaml';

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are untyped JSON, checked field by field */

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const chartDir = path.join(repoRoot, 'charts/commodity-data');
/** The Kubernetes version the chart is rendered and checked for (its kubeVersion allows >= 1.27). */
export const kubeVersion = '1.34.0';

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [k: string]: any };
  [k: string]: any;
};

/** Finds a tool built or installed by scripts/bootstrap.sh; throws (the spec fails, never skips) when absent. */
export function requireTool(name: 'helm' | 'hadolint'): string {
  const candidates = [process.env.CDS_BIN_DIR ? path.join(process.env.CDS_BIN_DIR, name) : undefined];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir) candidates.push(path.join(dir, name));
  const found = candidates.find((c): c is string => c !== undefined && existsSync(c));
  if (!found) {
    throw new Error(
      `${name} is not installed: run \`bash scripts/bootstrap.sh\` (it installs ${name} into the project cache), ` +
        'then run the tests through `bash scripts/run.sh` so the cache is on PATH',
    );
  }
  return found;
}

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: readonly string[], cwd = repoRoot): RunResult {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `helm template` of the chart with one values file (path relative to the chart) and any further
 * helm arguments (`--set`, `--set-json`...); returns helm's result.
 */
export function helmTemplate(
  valuesFile: string,
  release = 'cds-test',
  namespace = 'commodity',
  extraArgs: readonly string[] = [],
  /** A copy of the chart to render instead (values files are still read from the chart itself). */
  dir = chartDir,
): RunResult {
  return run(requireTool('helm'), [
    'template',
    release,
    dir,
    '--namespace',
    namespace,
    '--kube-version',
    kubeVersion,
    '--values',
    path.join(chartDir, valuesFile),
    ...extraArgs,
  ]);
}

/** Renders the chart and parses every object; fails with helm's message when rendering fails. */
export function renderChart(valuesFile: string, release = 'cds-test', namespace = 'commodity'): K8sObject[] {
  const r = helmTemplate(valuesFile, release, namespace);
  if (r.status !== 0) throw new Error(`helm template with ${valuesFile} failed:\n${r.stderr}`);
  return parseManifests(r.stdout, valuesFile);
}

export function parseManifests(text: string, source: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${source}: YAML error: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    objects.push(value as K8sObject);
  }
  return objects;
}

// kubernetes-models groups its classes by API group (`apps`, `networkingK8sIo`, `v1` for core) then version.
function modelFor(apiVersion: string, kind: string): { new (data: unknown): { validate(): void } } | undefined {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const groupKey =
    group === '' ? 'v1' : group!.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase()).replace(/\./g, '');
  const models = k8s as unknown as Record<string, Record<string, Record<string, unknown> | undefined> | undefined>;
  const byVersion: Record<string, Record<string, unknown> | undefined> | undefined =
    group === '' ? { v1: models.v1 as Record<string, unknown> | undefined } : models[groupKey];
  const ctor = byVersion?.[version!]?.[kind];
  return typeof ctor === 'function' ? (ctor as { new (data: unknown): { validate(): void } }) : undefined;
}

/**
 * The prometheus-operator's PrometheusRule (a CRD kubernetes-models does not bundle), checked against
 * the shape of its `spec` (monitoring.coreos.com/v1): named groups of rules, each an `alert` or a
 * `record` with an `expr`, an optional `for` duration and string labels and annotations.
 */
function validatePrometheusRule(obj: K8sObject): string[] {
  const at = `PrometheusRule ${obj.metadata?.name}`;
  const problems: string[] = [];
  const isStringMap = (m: unknown) =>
    m === undefined || (typeof m === 'object' && m !== null && Object.values(m).every((v) => typeof v === 'string'));
  const groups: unknown = obj.spec?.groups;
  if (!Array.isArray(groups) || groups.length === 0) return [`${at}: spec.groups must be a non-empty list`];
  const names = new Set<string>();
  for (const g of groups) {
    if (typeof g?.name !== 'string' || g.name === '') problems.push(`${at}: a group without a name`);
    else if (names.has(g.name)) problems.push(`${at}: group ${g.name} twice`);
    else names.add(g.name);
    if (!Array.isArray(g?.rules) || g.rules.length === 0) problems.push(`${at}: group ${g?.name} has no rules`);
    for (const r of (g?.rules ?? []) as any[]) {
      const id = r?.alert ?? r?.record;
      if ((r?.alert === undefined) === (r?.record === undefined))
        problems.push(`${at}: a rule of ${g?.name} needs exactly one of alert and record`);
      if (typeof r?.expr !== 'string' || r.expr.trim() === '') problems.push(`${at}: ${id} has no expr`);
      if (r?.for !== undefined && !/^(\d+(ms|s|m|h|d|w|y))+$/.test(r.for))
        problems.push(`${at}: ${id} has a bad for: ${r.for}`);
      if (!isStringMap(r?.labels) || !isStringMap(r?.annotations))
        problems.push(`${at}: ${id} labels and annotations must be strings`);
      const known = ['alert', 'record', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations'];
      for (const k of Object.keys(r ?? {}))
        if (!known.includes(k)) problems.push(`${at}: ${id} has unknown field ${k}`);
    }
  }
  return problems;
}

/** Validates one object against the Kubernetes OpenAPI schema of its apiVersion and kind; returns the problems. */
export function validateObject(obj: K8sObject): string[] {
  if (obj.apiVersion === 'monitoring.coreos.com/v1' && obj.kind === 'PrometheusRule')
    return validatePrometheusRule(obj);
  const Model = modelFor(obj.apiVersion, obj.kind);
  if (!Model) return [`${obj.kind} ${obj.metadata?.name}: no Kubernetes schema for ${obj.apiVersion} ${obj.kind}`];
  try {
    new Model(obj).validate();
    return [];
  } catch (e) {
    return [`${obj.kind} ${obj.metadata?.name}: ${(e as Error).message}`];
  }
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** Kubernetes label-selector semantics; an empty selector matches everything. */
export function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const inValues = has && (e.values ?? []).includes(labels[e.key]!);
    if (e.operator === 'In' && !inValues) return false;
    if (e.operator === 'NotIn' && inValues) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

export interface PodTemplate {
  owner: K8sObject;
  labels: Record<string, string>;
  spec: any;
}

/** Pod templates of every workload kind the chart renders. */
export function podTemplates(objects: readonly K8sObject[]): PodTemplate[] {
  const out: PodTemplate[] = [];
  for (const o of objects) {
    const tpl =
      o.kind === 'CronJob'
        ? o.spec.jobTemplate.spec.template
        : ['Deployment', 'StatefulSet', 'Job', 'DaemonSet'].includes(o.kind)
          ? o.spec.template
          : undefined;
    if (tpl) out.push({ owner: o, labels: tpl.metadata?.labels ?? {}, spec: tpl.spec });
  }
  return out;
}

export function readText(rel: string): string {
  return readFileSync(path.join(repoRoot, rel), 'utf8');
}
