import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceServer } from '../../test/helpers/source-server.ts';
import { createParseStats } from '../sources/common/stats.ts';
import type { SourceItem } from '../sources/types.ts';
import { buildSnapshotLive } from './build.ts';
import { SNAPSHOT_FILES } from './format.ts';
import { readSnapshot } from './read.ts';

// `npm run snapshot:build -- --live` against the local server replaying the recorded CFTC, EIA,
// NASS, World Bank and AMS answers: the same tasks as `ingest sync`, written as a snapshot.
const sources = new SourceServer();
let dir: string;

beforeAll(async () => {
  await sources.start();
  // the recorded WHEAT-SRW answers of the combined datasets and the CIT supplement too
  sources.loadCotDatasets();
  dir = await mkdtemp(join(tmpdir(), 'cds-snapshot-live-'));
});
afterAll(async () => {
  await sources.stop();
  await rm(dir, { recursive: true, force: true });
});

const settings = () => ({
  keys: { EIA_API_KEY: 'eia-test-key', NASS_API_KEY: 'nass-test-key' },
  baseUrls: {
    cftc: sources.baseUrl,
    eia: sources.baseUrl,
    nass: sources.baseUrl,
    ams: sources.baseUrl,
    worldbank: sources.worldbankPageUrl,
    wasde: sources.baseUrl,
    ecb: sources.ecbRatesUrl,
  },
});

describe('the snapshot built from the sources (--live)', () => {
  it('holds what every source answered, each with its provenance and licence, and reads back clean', async () => {
    const out = join(dir, 'live');
    const { manifest } = await buildSnapshotLive({
      outDir: out,
      cotSince: '2020-01-01',
      settings: settings(),
      http: { minIntervalMs: 0 },
      builtAt: new Date('2026-11-27T12:00:00Z'),
    });
    expect(manifest.built_from).toBe('live');
    expect(manifest.sources.map((s) => s.name)).toEqual(['cftc', 'ecb', 'eia', 'nass', 'wasde', 'worldbank']);
    const fromOf = (name: string) =>
      name === 'worldbank' ? sources.worldbankPageUrl : name === 'ecb' ? sources.ecbRatesUrl : sources.baseUrl;
    for (const s of manifest.sources) {
      expect(s.rows, s.name).toBeGreaterThan(0);
      expect(s.origin).toEqual([{ file: 'live', from: fromOf(s.name) }]);
    }
    // the ECB's whole history (the zip of the real excerpt): 1999-01-04 on, with its licence line
    expect(manifest.sources.find((s) => s.name === 'ecb')).toMatchObject({
      first_date: '1999-01-04',
      last_date: '2026-04-13',
      licence: expect.stringMatching(/Source: ECB statistics/),
    });
    expect(manifest.sources.find((s) => s.name === 'worldbank')?.licence).toMatch(/CC BY 4\.0/);

    const stats = createParseStats();
    const items: SourceItem[] = [];
    for await (const item of readSnapshot(out, { stats })) items.push(item);
    expect(stats.rejected).toBe(0);
    const gold = items.filter((i) => i.kind === 'series' && i.commodity_id === 'GOLD' && i.series_type === 'price');
    expect(gold.length).toBeGreaterThan(0);
    expect(gold[0]).toMatchObject({ source: 'worldbank:GOLD', price_basis: 'monthly_average', unit: 'USD/troy oz' });
    // the CFTC's reports and the weekly open interest they give
    expect(items.some((i) => i.kind === 'cot' && i.format === 'legacy')).toBe(true);
    // the combined reports and the CIT supplement, each in the file of its dataset and read back in its scope
    for (const [format, file] of [
      ['legacy', SNAPSHOT_FILES.legacy_combined],
      ['disaggregated', SNAPSHOT_FILES.disaggregated_combined],
      ['cit', SNAPSHOT_FILES.cit],
    ] as const) {
      expect(manifest.files[file]?.rows, file).toBeGreaterThan(0);
      expect(
        items.some((i) => i.kind === 'cot' && i.format === format && i.scope === 'futures_and_options'),
        file,
      ).toBe(true);
    }
    expect(
      items.some((i) => i.kind === 'series' && i.series_type === 'open_interest' && i.frequency === 'weekly'),
    ).toBe(true);
    // the WASDE balance sheets of the editions ESMIS lists (June 2026 and its May column), every XML edition asked
    const corn = items.filter((i) => i.kind === 'supply_demand' && i.commodity_id === 'CORN');
    expect(new Set(corn.map((i) => (i.kind === 'supply_demand' ? i.edition : '')))).toEqual(
      new Set(['2026-05', '2026-06']),
    );
    expect(manifest.sources.find((s) => s.name === 'wasde')).toMatchObject({
      first_date: '2026-05-01',
      last_date: '2026-06-01',
    });
  });

  it('writes nothing when a source needs a key it lacks, or a series fails', async () => {
    const noKey = join(dir, 'no-key');
    await expect(
      buildSnapshotLive({
        outDir: noKey,
        cotSince: '2020-01-01',
        settings: { ...settings(), keys: { EIA_API_KEY: '', NASS_API_KEY: 'nass-test-key' } },
      }),
    ).rejects.toThrow(/EIA_API_KEY is not set/);
    expect(existsSync(noKey)).toBe(false);

    const broken = join(dir, 'broken');
    for (const row of sources.nass) {
      row.value_text = row.Value;
      delete row.Value;
    }
    try {
      await expect(
        buildSnapshotLive({
          outDir: broken,
          cotSince: '2020-01-01',
          settings: settings(),
          sources: ['nass'],
          http: { minIntervalMs: 0 },
        }),
      ).rejects.toThrow(/has no "Value" field/);
      expect(existsSync(broken)).toBe(false);
    } finally {
      sources.reset();
    }
  });
});
