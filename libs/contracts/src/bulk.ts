import { z } from 'zod';
import { cotDatasetAllowed, PLAN_NAMES, PLANS, Plan } from './plans.ts';
import { AVAILABLE_SERIES_TYPES, COT_DATASETS, cotDatasetOfType, IsoDate, RequestId } from './primitives.ts';
import { documented } from './registry.ts';
import { sourceFactsOf } from './sources.ts';

/**
 * Bulk files (GET /bulk, GET /bulk/{file}): every observation of one dataset (a series type, a
 * COT format, or supply_demand: every figure in force of the balance sheets) across all commodities, written by a job after each sync (`npm run projector -- bulk`),
 * never per request. Each dataset has a full-history file and a `recent` one holding its last
 * BULK_RECENT_MONTHS months (what the Free plan may download), each as gzipped CSV and as Parquet.
 * The name says all of it: `<dataset>.<span>.<format>`, e.g. `price.recent.csv.gz`.
 */
export const BULK_DATASETS = AVAILABLE_SERIES_TYPES;
export type BulkDataset = (typeof BULK_DATASETS)[number];
export const BULK_SPANS = ['full', 'recent'] as const;
export type BulkSpan = (typeof BULK_SPANS)[number];
export const BULK_FORMATS = ['csv.gz', 'parquet'] as const;
export type BulkFormat = (typeof BULK_FORMATS)[number];
/** Months a `recent` file reaches back from the day it was generated (the Free plan's history). */
export const BULK_RECENT_MONTHS = 12;

/** The media type each format is served as. */
export const BULK_MEDIA_TYPES: Readonly<Record<BulkFormat, string>> = {
  'csv.gz': 'application/gzip',
  parquet: 'application/vnd.apache.parquet',
};

export interface BulkFileName {
  dataset: BulkDataset;
  span: BulkSpan;
  format: BulkFormat;
}

const FILE_NAME = new RegExp(
  `^(${BULK_DATASETS.join('|')})\\.(${BULK_SPANS.join('|')})\\.(${BULK_FORMATS.map((f) => f.replace('.', '\\.')).join('|')})$`,
);

export function bulkFileName(f: BulkFileName): string {
  return `${f.dataset}.${f.span}.${f.format}`;
}

/** What a bulk file name says, or undefined when it names no bulk file. */
export function parseBulkFileName(name: string): BulkFileName | undefined {
  const m = FILE_NAME.exec(name);
  if (m === null) return undefined;
  return { dataset: m[1] as BulkDataset, span: m[2] as BulkSpan, format: m[3] as BulkFormat };
}

/**
 * The plans that may download a dataset's file of a span: COT formats as the COT endpoint allows
 * them, full history only to plans without a history limit, a `recent` file to plans whose history
 * reaches BULK_RECENT_MONTHS back. supply_demand follows the series rule, as its endpoint does:
 * every plan reads it, Free keys the editions of their last 12 months (the `recent` file holds the
 * figures published by those editions).
 */
export function bulkFilePlans(dataset: BulkDataset, span: BulkSpan): Plan[] {
  return PLAN_NAMES.filter((plan) => {
    const rules = PLANS[plan];
    const cot = cotDatasetOfType(dataset);
    if (cot !== undefined && !cotDatasetAllowed(rules, COT_DATASETS[cot].format)) return false;
    if (rules.historyMonths === null) return true;
    return span === 'recent' && rules.historyMonths >= BULK_RECENT_MONTHS;
  });
}

/** The licence of a provenance `source` (its row's `licence` in SOURCES), or undefined for an unknown or absent one. */
export function licenceOf(source: string | undefined): string | undefined {
  return sourceFactsOf(source)?.licence;
}

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

export const BulkFile = documented(
  z.object({
    file: z.string().regex(FILE_NAME).meta({ description: 'The file name: GET /bulk/{file} downloads it.' }),
    dataset: z.enum(BULK_DATASETS).meta({
      description:
        'A series type, a COT dataset (cot_legacy, cot_cit, …), or supply_demand (one row per figure of a balance ' +
        'sheet in force: commodity, region, marketing_year, attribute, value, unit, edition, published_at, status).',
    }),
    span: z.enum(BULK_SPANS).meta({
      description:
        `full: every observation; recent: the last ${BULK_RECENT_MONTHS} months before generated_at ` +
        '(supply_demand: the figures published by the editions of those months).',
    }),
    format: z
      .enum(BULK_FORMATS)
      .meta({ description: 'csv.gz: gzipped CSV with a header row; parquet: Apache Parquet.' }),
    rows: z.int().min(0),
    bytes: z.int().min(0),
    sha256: Sha256.meta({ description: 'SHA-256 of the file (hex); also its strong ETag.' }),
    first_date: IsoDate,
    last_date: IsoDate,
    generated_at: z.iso.datetime(),
    columns: z.array(z.string()).meta({ description: 'The column names, in order.' }),
    licence: z.array(z.string()).meta({ description: 'The licences of the sources the file holds data of.' }),
    attribution: z.array(z.string()).meta({ description: 'How each source of the file asks to be cited.' }),
    plans: z.array(Plan).meta({ description: 'The plans whose keys may download the file (others get 403).' }),
  }),
  { id: 'BulkFile', description: 'The manifest entry of one bulk file.' },
);
export type BulkFile = z.infer<typeof BulkFile>;

export const BulkListResponse = documented(
  z.object({
    data: z.array(BulkFile),
    meta: z.object({
      generated_at: z.iso
        .datetime()
        .nullable()
        .meta({ description: 'When the files were generated; null before the first run.' }),
      request_id: RequestId,
    }),
  }),
  { id: 'BulkListResponse', description: 'The bulk files and their manifest.' },
);
export type BulkListResponse = z.infer<typeof BulkListResponse>;

export const BulkFileParams = z.strictObject({
  file: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: 'A file name from GET /bulk, e.g. price.recent.csv.gz.', examples: ['price.full.parquet'] }),
});
export type BulkFileParams = z.infer<typeof BulkFileParams>;
