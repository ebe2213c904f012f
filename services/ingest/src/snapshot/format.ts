import { z } from 'zod';
import { COT_DATASETS, sourceFactsOf, type CotDataset, type CotFormat } from '@cds/contracts';

/**
 * The bundled snapshot of real data (data/snapshot/, docs/sources.md "The bundled snapshot"): what
 * the sources published, as the ingest's parsers read it, in gzipped CSV files (the series, and one
 * per COT dataset) and a manifest. `npm start` loads it on any machine, offline included;
 * `npm run snapshot:build` rebuilds it from the sources (or from downloaded source files).
 *
 * Format 2 added the COT datasets of the combined reports and the CIT supplement, and a last
 * `failed_checks` column to every COT file (the row checks the parser found failing); a format 1
 * snapshot (COT files without that column) still reads. Format 3 added the supply and demand
 * balance sheets (`supply-demand.csv.gz`: one row per figure of each release of a sheet). Format 4
 * writes that file with one row per release of a sheet, its figures in one cell (sixteen years of monthly
 * editions fit in a third of the bytes); a format 3 supply and demand file is refused by its header.
 */
export const SNAPSHOT_FORMAT = 4;
export const MANIFEST_FILE = 'manifest.json';

/** The file of each part: the series, and each COT dataset (`cot-<dataset>.csv.gz`). */
export const SNAPSHOT_FILES = {
  series: 'series.csv.gz',
  legacy: 'cot-legacy.csv.gz',
  disaggregated: 'cot-disaggregated.csv.gz',
  legacy_combined: 'cot-legacy_combined.csv.gz',
  disaggregated_combined: 'cot-disaggregated_combined.csv.gz',
  cit: 'cot-cit.csv.gz',
  supply_demand: 'supply-demand.csv.gz',
} as const satisfies Record<'series' | CotDataset | 'supply_demand', string>;
export type SnapshotPart = keyof typeof SNAPSHOT_FILES;

/**
 * Bounds on an untrusted snapshot, fitted to the bundled one with margin (its largest files:
 * supply-demand.csv.gz, 0.9 MB compressed, 21 MB and 55,863 lines inflated; series.csv.gz with the
 * exchange rates, 1.4 MB, 17 MB and 276,062 lines): the largest file read
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

/**
 * The columns of the supply and demand file (format 4): one row per release of one balance sheet
 * (`failed_checks` `;`-separated, `published_at_estimated` `true` or empty), its figures in the
 * last cell: `attribute|unit|value`, `;`-separated (FIGURE_SEPARATOR, FIGURE_FIELD_SEPARATOR).
 */
export const SUPPLY_DEMAND_COLUMNS = [
  'commodity_id',
  'region',
  'marketing_year',
  'edition',
  'status',
  'source',
  'published_at',
  'published_at_estimated',
  'failed_checks',
  'figures',
] as const;
export const FIGURE_SEPARATOR = ';';
export const FIGURE_FIELD_SEPARATOR = '|';

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
  cit: [
    { group: 'commercial', spreading: false },
    { group: 'non_commercial', spreading: true },
    { group: 'index_traders', spreading: false },
    { group: 'non_reportable', spreading: false },
  ],
};

/** The COT datasets in the order a snapshot writes and reads them (the contracts' COT_DATASETS). */
export const SNAPSHOT_COT_DATASETS = Object.keys(COT_DATASETS) as CotDataset[];

/** The last column of a COT file: the record's failed row checks, `;`-separated (empty: none). */
export const FAILED_CHECKS_COLUMN = 'failed_checks';
export const FAILED_CHECKS_SEPARATOR = ';';

const COT_HEAD = ['commodity_id', 'source', 'report_date', 'exchange', 'contract_code', 'open_interest'] as const;

/** The columns of a COT file of `format` (every dataset of a format has the same ones). */
export function cotColumns(format: CotFormat): string[] {
  return [
    ...COT_HEAD,
    ...COT_GROUPS[format].flatMap(({ group, spreading }) =>
      (spreading ? ['long', 'short', 'spreading'] : ['long', 'short']).map((side) => `${group}_${side}`),
    ),
    FAILED_CHECKS_COLUMN,
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
  /** 4: one supply and demand row per release; 3 since the balance sheets; 2 since the combined and CIT datasets; 1: the COT files have no failed_checks column. */
  format: z.int().min(1).max(SNAPSHOT_FORMAT),
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
