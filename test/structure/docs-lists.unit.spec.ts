// The lists the docs keep of the workspaces and the sources, held to the folders and the registry:
// the README's repository block and endpoint block, the architecture diagram and workspace table,
// and every workspace, source or `@cds/` package any README or doc names. A failure names the
// missing or extra entry and where it is listed.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  API_PREFIX,
  PUBLIC_ROUTES,
  PUBLIC_SOURCE_NAMES,
  ROUTE_NAMES,
  ROUTES_BY_NAME,
  openApiPath,
} from '@cds/contracts';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const foldersOf = (dir: string) =>
  readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

const WORKSPACES = { libs: foldersOf('libs'), services: foldersOf('services') };
/** The registered sources: the contracts' table, which the ingest registry is checked against. */
const SOURCES: readonly string[] = PUBLIC_SOURCE_NAMES;

/** What a listed set lacks and what it has beyond the expected one, as one readable line each. */
function drift(what: string, listed: Iterable<string>, expected: Iterable<string>): string[] {
  const have = new Set(listed);
  const want = new Set(expected);
  return [
    ...[...want].filter((n) => !have.has(n)).map((n) => `${what} lacks ${n}`),
    ...[...have].filter((n) => !want.has(n)).map((n) => `${what} lists ${n}, which does not exist`),
  ];
}

/** The text of a markdown section: from its `## ` heading to the next one. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** The body of the first fenced code block of a text. */
function firstCodeBlock(text: string): string {
  const match = /```[a-z]*\n([\s\S]*?)\n```/.exec(text);
  if (match === null) throw new Error('no code block');
  return match[1]!;
}

/**
 * The names a line lists: its longest run of comma-separated lower-case names, parentheses left
 * out (`small kits: config, telemetry, messaging (NATS), store` → config, telemetry, messaging, store).
 */
function listedNames(line: string): string[] {
  const plain = line.replace(/\s*\([^)]*\)/g, '');
  const runs = plain.match(/\b[a-z][a-z0-9-]*(?:, [a-z][a-z0-9-]*)+/g) ?? [];
  const longest = runs.reduce((a, b) => (b.length > a.length ? b : a), '');
  return longest === '' ? [] : longest.split(', ');
}

/** The lines of a block that start with a prefix, each as what follows it. */
function linesStarting(block: string, prefix: string): string[] {
  return block
    .split('\n')
    .filter((l) => l.trimStart().startsWith(prefix))
    .map((l) => l.trimStart().slice(prefix.length));
}

describe('README.md', () => {
  const readme = read('README.md');
  const block = firstCodeBlock(section(readme, 'Repository'));

  it('the repository block lists every lib and no other', () => {
    const listed = [
      ...[...block.matchAll(/^libs\/([a-z][a-z0-9-]*)\s/gm)].map((m) => m[1]!),
      ...linesStarting(block, 'libs/*').flatMap(listedNames),
    ];
    expect(drift('README.md "Repository", libs', listed, WORKSPACES.libs)).toEqual([]);
  });

  it('the repository block lists every service and no other', () => {
    const listed = linesStarting(block, 'services/*').flatMap(listedNames);
    expect(drift('README.md "Repository", services', listed, WORKSPACES.services)).toEqual([]);
  });

  it('the repository block lists every registered source and no other', () => {
    const listed = linesStarting(block, 'services/ingest/src/sources/').flatMap(listedNames);
    expect(drift('README.md "Repository", sources', listed, SOURCES)).toEqual([]);
  });

  it('the endpoint block lists every public route and no other', () => {
    const listed = firstCodeBlock(readme)
      .split('\n')
      .map((l) => /^GET (\S+)/.exec(l)?.[1])
      .filter((p) => p !== undefined);
    expect(
      drift(
        'README.md endpoint block',
        listed,
        PUBLIC_ROUTES.map((r) => API_PREFIX + openApiPath(r)),
      ),
    ).toEqual([]);
  });
});

describe('docs/architecture.md', () => {
  const doc = read('docs/architecture.md');
  const diagram = firstCodeBlock(doc);

  it('the diagram lists every registered source and no other', () => {
    const lines = linesStarting(diagram, 'sources:');
    expect(lines).toHaveLength(1);
    expect(drift('the architecture diagram, sources', listedNames(lines[0]!), SOURCES)).toEqual([]);
  });

  it('the diagram shows every service and names only libs that exist', () => {
    const missing = WORKSPACES.services
      .filter((s) => !new RegExp(`\\b${s}\\b`).test(diagram))
      .map((s) => `the architecture diagram lacks ${s}`);
    const libs = [...diagram.matchAll(/\blibs\/([a-z][a-z0-9-]*)/g)].map((m) => m[1]!);
    const extra = libs
      .filter((l) => !WORKSPACES.libs.includes(l))
      .map((l) => `the architecture diagram names libs/${l}, which does not exist`);
    expect([...missing, ...extra]).toEqual([]);
  });

  it('the workspace table has one row per workspace', () => {
    const rows = [...section(doc, 'Workspaces').matchAll(/^\| `((?:libs|services)\/[a-z][a-z0-9-]*)` +\|/gm)];
    const listed = rows.map((m) => m[1]!);
    expect(listed.length).toBe(new Set(listed).size);
    const expected = [...WORKSPACES.libs.map((l) => `libs/${l}`), ...WORKSPACES.services.map((s) => `services/${s}`)];
    expect(drift('docs/architecture.md "Workspaces"', listed, expected)).toEqual([]);
  });
});

describe('services/query/README.md', () => {
  it('the route table lists every route the query service answers and no other', () => {
    const listed = [...read('services/query/README.md').matchAll(/^\| `GET (\/api\/\S+)` +\|/gm)].map((m) => m[1]!);
    const served = ROUTE_NAMES.map((name) => ROUTES_BY_NAME[name].path);
    expect(drift('services/query/README.md routes', listed, served)).toEqual([]);
  });
});

/** The README of the repository and of every workspace, and the docs. */
function documents(): string[] {
  const readmes = ['libs', 'services'].flatMap((dir) =>
    foldersOf(dir)
      .map((w) => `${dir}/${w}/README.md`)
      .filter((p) => readdirSync(join(ROOT, dirname(p))).includes('README.md')),
  );
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...readmes, ...docs];
}

/** The workspaces, packages and sources a text names, as `libs/x`, `services/x` and `sources/x`. */
function namedEntries(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![\w./-])(?:\.\.\/)*(libs|services)\/([a-z][a-z0-9-]*)(?![\w-])/g))
    out.add(`${m[1]}/${m[2]}`);
  for (const m of text.matchAll(/@cds\/([a-z][a-z0-9-]*)/g)) {
    const name = m[1]!;
    out.add(WORKSPACES.services.includes(name) ? `services/${name}` : `libs/${name}`);
  }
  // A source's folder, not a file of the sources' own (`sources/registry.ts`).
  for (const m of text.matchAll(/services\/ingest\/src\/sources\/([a-z][a-z0-9-]*)(?![\w.-])/g))
    out.add(`sources/${m[1]}`);
  return [...out].sort();
}

describe('every README and doc', () => {
  const known = new Set([
    ...WORKSPACES.libs.map((l) => `libs/${l}`),
    ...WORKSPACES.services.map((s) => `services/${s}`),
    ...SOURCES.map((s) => `sources/${s}`),
    // The sources' shared kit, beside their folders (services/ingest/src/sources/common/).
    'sources/common',
  ]);

  for (const path of documents()) {
    it(`${path} names only workspaces, packages and sources that exist`, () => {
      const unknown = namedEntries(read(path)).filter((n) => !known.has(n));
      expect(unknown.map((n) => `${path} names ${n}, which does not exist`)).toEqual([]);
    });
  }

  it('the checks find what is missing, extra or unknown', () => {
    expect(listedNames('small kits: config, telemetry, messaging (NATS), store (MongoDB), mail')).toEqual([
      'config',
      'telemetry',
      'messaging',
      'store',
      'mail',
    ]);
    expect(drift('a list', ['a', 'c'], ['a', 'b'])).toEqual(['a list lacks b', 'a list lists c, which does not exist']);
    expect(
      namedEntries(
        'see ../../libs/nowhere, https://example.org/services/v1, `@cds/gateway`, services/ingest/src/sources/acme/ and services/ingest/src/sources/registry.ts',
      ),
    ).toEqual(['libs/nowhere', 'services/gateway', 'services/ingest', 'sources/acme']);
  });
});
