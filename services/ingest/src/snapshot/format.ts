import { z } from 'zod';
import { sourceFactsOf, type CotFormat } from '@cds/contracts';

/**
 * The bundled snapshot of real data (data/snapshot/, docs/sources.md "The bundled snapshot"): what
 * the sources published, as the ingest's parsers read it, in three gzipped CSV files and a
 * manifest. `npm start` loads it on any machine, offline included; `npm run snapshot:build`
 * rebuilds it from the sources (or from downloaded source files).
 */
export const SNAPSHOT_FORMAT = 1;
export const MANIFEST_FILE = 'manifest.json';

export const SNAPSHOT_FILES = {
  series: 'series.csv.gz',
  legacy: 'cot-legacy.csv.gz',
  disaggregated: 'cot-disaggregated.csv.gz',
} as const;
export type SnapshotPart = keyof typeof SNAPSHOT_FILES;

/**
 * Bounds on an untrusted snapshot, fitted to the bundled one with margin (its largest file,
 * series.csv.gz: 0.3 MB compressed, 4.4 MB and 58,507 lines inflated): the largest file read
 * (compressed), the most it may inflate to, and the most lines it may hold. Checked on every file
 * before the first item (docs/sources.md "What an import refuses").
 */
export const MAX_FILE_BYTES = 8 * 1024 * 1024;
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;
export const MAX_FILE_LINES = 1_000_000;

export const SERIES_COLUMNS = [
  'commodity_id',
  'series_type',
  'frequency',
  'unit',
  'source',
  'price_basis',
  'date',
  'value',
] as const;

/** The position groups of each COT format and whether each has spreading, in the contract's order. */
export const COT_GROUPS: Record<CotFormat, readonly { group: string; spreading: boolean }[]> = {
  legacy: [
    { group: 'commercial', spreading: false },
    { group: 'non_commercial', spreading: true },
    { group: 'non_reportable', spreading: false },
  ],
  disaggregated: [
    { group: 'producer_merchant', spreading: false },
    { group: 'swap_dealer', spreading: true },
    { group: 'managed_money', spreading: true },
    { group: 'other_reportable', spreading: true },
  ],
};

const COT_HEAD = ['commodity_id', 'source', 'report_date', 'exchange', 'contract_code', 'open_interest'] as const;

export function cotColumns(format: CotFormat): string[] {
  return [
    ...COT_HEAD,
    ...COT_GROUPS[format].flatMap(({ group, spreading }) =>
      (spreading ? ['long', 'short', 'spreading'] : ['long', 'short']).map((side) => `${group}_${side}`),
    ),
  ];
}

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const IsoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/** Where the data of one source came from, its licence and the dates it covers. */
export const SnapshotSource = z.strictObject({
  /** The provenance prefix of its numbers: cftc, eia, nass, worldbank, ams. */
  name: z.string().min(1).max(40),
  /** What was read: the files (name, SHA-256 and where they were downloaded from) or `live`. */
  origin: z
    .array(
      z.strictObject({
        file: z.string().min(1).max(300),
        sha256: Sha256.optional(),
        from: z.string().max(500).optional(),
      }),
    )
    .max(200),
  licence: z.string().min(1).max(300),
  first_date: IsoDay.nullable(),
  last_date: IsoDay.nullable(),
  rows: z.int().min(0),
});
export type SnapshotSource = z.infer<typeof SnapshotSource>;

export const SnapshotManifest = z.strictObject({
  format: z.literal(SNAPSHOT_FORMAT),
  built_at: z.iso.datetime({ offset: true }),
  /** How it was built: `files` (downloaded source files) or `live` (the sources' APIs). */
  built_from: z.enum(['files', 'live']),
  files: z.partialRecord(
    z.enum(Object.values(SNAPSHOT_FILES) as [string, ...string[]]),
    z.strictObject({ sha256: Sha256, bytes: z.int().min(0), rows: z.int().min(0) }),
  ),
  sources: z.array(SnapshotSource).max(20),
});
export type SnapshotManifest = z.infer<typeof SnapshotManifest>;

/** The licence line a source's rows carry in the manifest (its `snapshotLicence` in the contracts' SOURCES). */
export function snapshotLicenceOf(name: string): string | undefined {
  return sourceFactsOf(name)?.snapshotLicence;
}
