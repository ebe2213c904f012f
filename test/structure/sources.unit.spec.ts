import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RELEASE_RULES, SOURCES, type SourceFacts } from '@cds/contracts';
import { REGISTRY } from '@cds/ingest';
import { importGraph } from './import-graph.ts';
import { filesNaming, namesSource, spells } from './source-names.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCES_DIR = 'services/ingest/src/sources';
const NAMES = REGISTRY.map((s) => s.name);

/** The two files outside its folder that may name a source: the registry and the contracts table. */
const ALLOWED = new Set([`${SOURCES_DIR}/registry.ts`, 'libs/contracts/src/sources.ts']);

/**
 * Files that still name a source outside its folder (docs/adding-a-source.md "What is not derived
 * yet"): the list may only shrink. A file that stops naming a source must leave it (the spec says
 * so), and a file not listed here may not start.
 */
const NOT_YET_DERIVED: Readonly<Record<string, readonly string[]>> = {
  'libs/contracts/src/primitives.ts': ['demo'],
  'libs/contracts/src/status.ts': ['demo'],
  'scripts/start.ts': ['demo', 'snapshot'],
  'services/dashboard/src/explorer/client/explorer.js': ['demo'],
  'services/gateway/src/main.ts': ['demo'],
  'services/gateway/src/status/status-document.ts': ['demo'],
  'services/ingest/src/cli/args.ts': ['demo', 'snapshot'],
  'services/ingest/src/cli/sources.ts': ['demo', 'snapshot'],
  'services/ingest/src/snapshot/write.ts': ['demo'],
  'services/projector/src/projections/types.ts': ['demo'],
};

describe('a source name', () => {
  it('is found as a word of an identifier or a string, and a feature word only as itself', () => {
    expect(spells('byWorldBankCode', 'worldbank')).toBe(true);
    expect(spells('EIA_API_KEY', 'eia')).toBe(true);
    expect(spells('cftc:legacy:067651', 'cftc')).toBe(true);
    expect(spells('streams', 'ams')).toBe(false);
    expect(spells('dreams_list', 'ams')).toBe(false);
    expect(namesSource('demo:GOLD', 'demo')).toBe(true);
    expect(namesSource('DEMO_PARTS', 'demo')).toBe(false);
    expect(namesSource('snapshotDir', 'snapshot')).toBe(false);
    // Published prose naming an agency is content; a label, a message fragment or a key is code.
    expect(namesSource('Not in the CFTC reports (a UK-regulated market).', 'cftc')).toBe(false);
    expect(namesSource("the World Bank's ORANGE series is fresh oranges, a different product.", 'worldbank')).toBe(
      false,
    );
    expect(namesSource('CFTC legacy report', 'cftc')).toBe(true);
    expect(namesSource('worldbank: no rows in the sheet', 'worldbank')).toBe(true);
  });

  it(
    'appears outside its folder only in the registry and the contracts table (and the files not derived yet)',
    {
      timeout: 60_000,
    },
    () => {
      const found = filesNaming(ROOT, NAMES);
      const extra: string[] = [];
      const stale: string[] = [];
      for (const [name, files] of found)
        for (const file of files)
          if (!ALLOWED.has(file) && !NOT_YET_DERIVED[file]?.includes(name)) extra.push(`${file}: ${name}`);
      for (const [file, names] of Object.entries(NOT_YET_DERIVED))
        for (const name of names) if (!found.get(name)?.includes(file)) stale.push(`${file}: ${name}`);
      expect(extra, 'a source named outside its folder: derive it from the registry or the SOURCES table').toEqual([]);
      expect(stale, 'no longer named there: take it off NOT_YET_DERIVED').toEqual([]);
    },
  );
});

describe('the import rules of the ingest sources', () => {
  it(
    'no source imports another, no source or snapshot code imports the CLI, no source imports the sync runner',
    {
      timeout: 60_000,
    },
    () => {
      const production = (f: string) => !/\.spec\.ts$|\/testing\//.test(f);
      const ingest = 'services/ingest/src/';
      const sourceOf = (f: string) => new RegExp(`^${SOURCES_DIR}/([^/]+)/`).exec(f)?.[1];
      const under = (f: string, dir: string) => f.startsWith(`${ingest}${dir}/`);
      const broken: string[] = [];
      for (const [file, targets] of importGraph(ROOT)) {
        if (!production(file)) continue;
        for (const t of targets) {
          const [a, b] = [sourceOf(file), sourceOf(t)];
          if (a !== undefined && b !== undefined && a !== b && a !== 'common' && b !== 'common')
            broken.push(`${file} -> ${t}: a source imports another`);
          if ((under(file, 'sources') || under(file, 'snapshot')) && under(t, 'cli'))
            broken.push(`${file} -> ${t}: into cli/`);
          if (under(file, 'sources') && under(t, 'sync'))
            broken.push(`${file} -> ${t}: a source imports the sync runner`);
        }
      }
      expect(broken).toEqual([]);
    },
  );
});

describe('every registered source', () => {
  const fixtures = join(ROOT, 'services/ingest/test/fixtures');
  const fixtureFiles = [...readdirSync(fixtures), ...readdirSync(join(fixtures, 'sync')).map((f) => `sync/${f}`)];
  const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
  const specsOf = (dir: string, pick: (file: string) => boolean) =>
    existsSync(join(ROOT, dir))
      ? readdirSync(join(ROOT, dir))
          .filter((f) => f.endsWith('.spec.ts') && pick(f))
          .map((f) => read(`${dir}/${f}`))
      : [];
  /** Whether one of the texts names a fixture file of the source (`<name>_...`, in fixtures/ or fixtures/sync/). */
  const namesFixture = (name: string, texts: readonly string[], dirs: 'top' | 'any') =>
    fixtureFiles
      .filter((f) => (dirs === 'top' ? !f.includes('/') : true) && f.replace(/^sync\//, '').startsWith(`${name}_`))
      .some((f) => texts.some((t) => t.includes(f.replace(/^sync\//, ''))));
  const headings = read('docs/sources.md')
    .split('\n')
    .filter((l) => /^#{2,3} /.test(l))
    .map((l) => l.replace(/[^A-Za-z]/g, '').toLowerCase());

  for (const source of REGISTRY) {
    const { name } = source;
    describe(name, () => {
      it('has its row in the contracts table and a section of docs/sources.md', () => {
        expect(SOURCES[name].title.length).toBeGreaterThan(0);
        expect(
          headings.some((h) => h.includes(name)),
          `a heading of docs/sources.md naming ${name}`,
        ).toBe(true);
      });

      // A part a source does not have (no file parser, no sync) has no case: nothing is reported skipped.
      if (source.inputs.length > 0) {
        it('has a parser fixture its specs read', () => {
          const specs = specsOf(`${SOURCES_DIR}/${name}`, () => true);
          expect(
            namesFixture(name, specs, 'top'),
            `services/ingest/test/fixtures/${name}_* read by a spec in ${SOURCES_DIR}/${name}/`,
          ).toBe(true);
        });
      }

      if (source.sync !== undefined) {
        it('has a sync recording, a release calendar, an attribution and a licence', () => {
          const texts = [
            ...specsOf(`${SOURCES_DIR}/${name}`, (f) => f.includes('sync')),
            ...specsOf('services/ingest/src/sync', () => true),
            read('services/ingest/test/helpers/source-server.ts'),
          ];
          expect(
            namesFixture(name, texts, 'any'),
            `a recording services/ingest/test/fixtures/[sync/]${name}_* the sync specs serve`,
          ).toBe(true);
          const row: SourceFacts = SOURCES[name];
          expect(RELEASE_RULES).toContain(row.calendar?.rule);
          expect(row.attribution).toBeTruthy();
          expect(row.licence).toBeTruthy();
        });
      }
    });
  }

  it('carries an attribution unless its records carry their own (a user file, the snapshot)', () => {
    const without = REGISTRY.filter((s) => (SOURCES[s.name] as SourceFacts).attribution === undefined);
    expect(without.map((s) => s.name)).toEqual(['ohlcv', 'snapshot']);
  });
});
