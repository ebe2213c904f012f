// The image recipe: hadolint (installed by scripts/bootstrap.sh from its PyPI wheel) plus the rules
// the platform relies on, checked on the Dockerfile text (no Docker engine here to build it).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readText, repoRoot, requireTool, run } from './helpers.ts';

const dockerfile = readText('Dockerfile');
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const args = Object.fromEntries(
  instructions
    .filter((l) => /^ARG \w+=/.test(l))
    .map((l) => {
      const [k, ...v] = l.slice(4).split('=');
      return [k!, v.join('=')];
    }),
);
const froms = instructions.filter((l) => l.startsWith('FROM '));
const stages = froms.map((l) => / AS (\S+)$/i.exec(l)?.[1]);

describe('Dockerfile', () => {
  it('passes hadolint', () => {
    const r = run(requireTool('hadolint'), ['--failure-threshold', 'info', 'Dockerfile']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it('is multi-stage and builds every base from a version-and-digest-pinned Node 24 image', () => {
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) {
      const ref = from.split(/\s+/)[1]!.replace(/^\$\{(\w+)\}$/, (_, name: string) => args[name] ?? '');
      expect(ref, from).toMatch(/^node:24\.\d+\.\d+-[a-z]+(-slim)?@sha256:[a-f0-9]{64}$/);
      expect(ref).not.toMatch(/latest/);
    }
  });

  it('uses the Node version of .nvmrc', () => {
    const nvmrc = readFileSync(path.join(repoRoot, '.nvmrc'), 'utf8').trim();
    expect(args.NODE_IMAGE).toContain(`node:${nvmrc}-`);
  });

  it('installs production dependencies only, in a build stage', () => {
    expect(instructions.some((l) => /^RUN npm ci --omit=dev\b/.test(l))).toBe(true);
    const runtimeAt = froms.length - 1;
    const runtimeLines = instructions.slice(instructions.indexOf(froms[runtimeAt]!));
    expect(runtimeLines.some((l) => /npm (ci|install)/.test(l))).toBe(false);
    expect(runtimeLines).toContain(`COPY --from=${stages[1]} /app/node_modules node_modules`);
  });

  it('runs as the non-root node user (uid 1000) and starts a service with Node type stripping', () => {
    const users = instructions.filter((l) => l.startsWith('USER '));
    expect(users.at(-1)).toBe('USER 1000:1000');
    expect(instructions.indexOf(users.at(-1)!)).toBeGreaterThan(instructions.indexOf(froms.at(-1)!));
    expect(instructions).toContain('ENTRYPOINT ["node", "--disable-warning=ExperimentalWarning"]');
    expect(dockerfile).toMatch(/services\/\$\{SERVICE\}\/src\/main\.ts/);
  });

  it('has a .dockerignore that sends only manifests, libs and services to the builder', () => {
    const ignore = readText('.dockerignore')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(ignore[0]).toBe('**');
    expect(ignore).toEqual(
      expect.arrayContaining(['!package.json', '!package-lock.json', '!libs/**', '!services/**', '**/node_modules']),
    );
  });

  it('gets every package the running services import from the production install (npm ci --omit=dev)', () => {
    type Pkg = { name: string; dependencies?: Record<string, string> };
    const workspaces = ['libs', 'services']
      .flatMap((d) => readdirSync(path.join(repoRoot, d)).map((n) => `${d}/${n}`))
      .filter((w) => existsSync(path.join(repoRoot, w, 'package.json')));
    const pkgs = new Map(
      workspaces.map((w) => [w, JSON.parse(readFileSync(path.join(repoRoot, w, 'package.json'), 'utf8')) as Pkg]),
    );
    const byName = new Map([...pkgs].map(([w, p]) => [p.name, w]));
    // The workspaces a service reaches through production dependencies (test kits are dev-only).
    const runtime = new Set<string>();
    const visit = (w: string) => {
      if (runtime.has(w)) return;
      runtime.add(w);
      for (const dep of Object.keys(pkgs.get(w)!.dependencies ?? {})) if (byName.has(dep)) visit(byName.get(dep)!);
    };
    workspaces.filter((w) => w.startsWith('services/')).forEach(visit);
    const installed = new Set([...runtime].flatMap((w) => Object.keys(pkgs.get(w)!.dependencies ?? {})));
    const missing: string[] = [];
    for (const w of runtime) {
      const files = (readdirSync(path.join(repoRoot, w, 'src'), { recursive: true }) as string[]).filter(
        (f) => f.endsWith('.ts') && !f.includes('.spec.') && !f.split(path.sep).includes('testing'),
      );
      for (const f of files) {
        const text = readFileSync(path.join(repoRoot, w, 'src', f), 'utf8');
        for (const m of text.matchAll(
          /^(import|export)\s(?!type\s)[^'"]*?from\s+'([^'.][^']*)'|^import\s+'([^'.][^']*)'/gm,
        )) {
          const spec = (m[2] ?? m[3])!;
          if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
          if (!installed.has(name)) missing.push(`${w}/src/${f}: ${name}`);
        }
      }
    }
    expect(runtime.size).toBeGreaterThan(4);
    // The workspaces of change notifications are in the image: the notifier and the libraries it runs on.
    expect([...runtime]).toEqual(expect.arrayContaining(['services/notifier', 'libs/webhooks', 'libs/mail']));
    expect(missing).toEqual([]);
  });

  it('builds every service the chart deploys: its entry point exists and its port is exposed', () => {
    const values = parse(readText('charts/commodity-data/values.yaml')) as {
      services: Record<string, { port: number }>;
    };
    const exposed = instructions
      .filter((l) => l.startsWith('EXPOSE '))
      .flatMap((l) => l.slice(7).trim().split(/\s+/))
      .map(Number);
    expect(Object.keys(values.services)).toContain('notifier');
    for (const [service, { port }] of Object.entries(values.services)) {
      const entry = `services/${service}/src/main.ts`;
      expect(existsSync(path.join(repoRoot, entry)), entry).toBe(true);
      expect(exposed, `${service} port`).toContain(port);
    }
  });
});
