import { z } from 'zod';
import { AS_OF_PATTERN, asOf, asOfDescription, page, perPage } from './params.ts';
import { CommodityId, RequestId } from './primitives.ts';
import { documented } from './registry.ts';

/**
 * Supply and demand: the balance sheets of USDA's World Agricultural Supply and Demand Estimates
 * (WASDE), one figure per commodity, region, marketing year and attribute, each edition a version
 * published at its release (docs/supply-demand.md). The events the ingest publishes, the query
 * string and the answer of GET /commodities/{slug}/supply-demand.
 */

/** snake_case words: a region or an attribute as the API names it (`united_states`, `ending_stocks`). */
export const SNAKE_CASE_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 60;

/** A marketing year as WASDE writes it: `YYYY/YY`, the second year the one after the first (2026/27). */
export const MARKETING_YEAR_PATTERN = /^(\d{4})\/(\d{2})$/;

/** A table kept by calendar year (the U.S. meats): its year as WASDE writes it, `YYYY` (2025). */
export const CALENDAR_YEAR_PATTERN = /^\d{4}$/;

/**
 * Whether a string names a real marketing year, `YYYY/YY` (1999/00 and 2026/27 do, 2026/28 does
 * not), or the calendar year `YYYY` of a table kept by calendar year.
 */
export function isMarketingYear(s: string): boolean {
  if (CALENDAR_YEAR_PATTERN.test(s)) return true;
  const m = MARKETING_YEAR_PATTERN.exec(s);
  if (m === null) return false;
  return (Number(m[1]) + 1) % 100 === Number(m[2]);
}

/** The first calendar year of a marketing year (`2026/27` → 2026, `2025` → 2025). */
export function marketingYearStart(my: string): number {
  return Number(my.slice(0, 4));
}

/**
 * Exactly the marketing years, as one pattern the OpenAPI document states (so a contract tester
 * generates only real ones): the first year's last two digits, then the next year's
 * (`[0-9]{2}(?:00/01|01/02|…|99/00)`), or a calendar year `[0-9]{4}`; ASCII digits, as
 * isMarketingYear checks.
 */
const MARKETING_YEAR_EXACT = new RegExp(
  `^(?:[0-9]{4}|[0-9]{2}(?:${Array.from({ length: 100 }, (_, i) => `${String(i).padStart(2, '0')}/${String((i + 1) % 100).padStart(2, '0')}`).join('|')}))$`,
);

export const MarketingYear = documented(
  z
    .string()
    .regex(
      MARKETING_YEAR_EXACT,
      'must be a marketing year YYYY/YY such as 2026/27, or a calendar year YYYY such as 2025',
    ),
  {
    id: 'MarketingYear',
    description:
      'A marketing year as WASDE writes it, YYYY/YY (2026/27: the year beginning in 2026), or YYYY for a table kept by calendar year (the U.S. meats: 2025).',
    examples: ['2026/27'],
  },
);

const snakeName = (what: string) =>
  z
    .string()
    .min(1)
    .max(MAX_NAME_LENGTH)
    .regex(SNAKE_CASE_PATTERN, `${what} is snake_case, for example ${what === 'a region' ? 'world' : 'ending_stocks'}`);

export const SupplyDemandRegion = documented(snakeName('a region'), {
  id: 'SupplyDemandRegion',
  description:
    'A region of the balance sheets in snake_case: united_states, world, or a country or group of the world tables ' +
    '(china, eu, major_exporters, …), as the table names it.',
  examples: ['united_states'],
});

export const SupplyDemandAttribute = documented(snakeName('an attribute'), {
  id: 'SupplyDemandAttribute',
  description:
    'A row of a balance sheet in snake_case of its name (area_planted, yield, beginning_stocks, production, imports, ' +
    'supply_total, feed_and_residual, food_seed_industrial, exports, use_total, ending_stocks, avg_farm_price, …), ' +
    'or the derived stocks_to_use.',
  examples: ['ending_stocks'],
});

/** An edition: the month of the WASDE report, `YYYY-MM`. */
export const EDITION_PATTERN = /^\d{4}-(?:0[1-9]|1[0-2])$/;
export const Edition = documented(z.string().regex(EDITION_PATTERN, 'an edition is YYYY-MM'), {
  id: 'Edition',
  description: 'The WASDE edition (the month of the report), YYYY-MM.',
  examples: ['2026-06'],
});

/** What a marketing year's column is in an edition: WASDE's "Est." (or an unflagged past year) or "Proj.". */
export const SUPPLY_DEMAND_STATUSES = ['estimate', 'projection'] as const;
export const SupplyDemandStatus = documented(z.enum(SUPPLY_DEMAND_STATUSES), {
  id: 'SupplyDemandStatus',
  description:
    'estimate (a year WASDE marks "Est.", or a past year without a mark) or projection (a year marked "Proj.").',
});
export type SupplyDemandStatus = z.infer<typeof SupplyDemandStatus>;

/**
 * The checks a balance sheet is held to on ingest: supply (beginning stocks + production + imports,
 * as the table totals it) equals total use plus ending stocks, within the table's rounding.
 */
export const SUPPLY_DEMAND_CHECKS = ['supply_equals_use_plus_ending_stocks'] as const;
export const SupplyDemandCheck = documented(z.enum(SUPPLY_DEMAND_CHECKS), {
  id: 'SupplyDemandCheck',
  description:
    'A consistency check of a balance sheet: supply_equals_use_plus_ending_stocks (supply total = use total + ' +
    'ending stocks, within rounding).',
});
export type SupplyDemandCheck = z.infer<typeof SupplyDemandCheck>;

/** The derived attribute: ending stocks over total use, for grains (labelled derived, never a WASDE row). */
export const STOCKS_TO_USE = 'stocks_to_use';

// --- the event ------------------------------------------------------------------------------------

export const MAX_FIGURES_PER_EVENT = 500;

/** One figure of a balance sheet as the table states it: the unit in USDA's words. */
export const SupplyDemandFigureRecord = z.strictObject({
  attribute: SupplyDemandAttribute,
  unit: z.string().min(1).max(60),
  value: z.number().finite(),
});
export type SupplyDemandFigureRecord = z.infer<typeof SupplyDemandFigureRecord>;

/**
 * One release of one balance sheet: every figure one edition published for a commodity, a region
 * and a marketing year (the US table and the world table's row of the same region merged, each
 * figure keyed by attribute and unit). `published_at` is the edition's release (12:00 New York on
 * its release date), or a corrected re-post's time; the previous edition's column a table carries
 * is a batch of that edition, published at that edition's release.
 */
export const SupplyDemandBatch = z
  .strictObject({
    commodity_id: CommodityId,
    region: SupplyDemandRegion,
    marketing_year: MarketingYear,
    edition: Edition,
    status: SupplyDemandStatus,
    /** Provenance: `<source>:<file>` (the file the figures were read from). */
    source: z.string().min(1).max(200).optional(),
    published_at: z.iso.datetime({ offset: true }),
    published_at_estimated: z.boolean().optional(),
    /** The checks this balance sheet failed on ingest (stored and served as published). */
    failed_checks: z.array(SupplyDemandCheck).min(1).max(SUPPLY_DEMAND_CHECKS.length).optional(),
    figures: z.array(SupplyDemandFigureRecord).min(1).max(MAX_FIGURES_PER_EVENT),
  })
  .superRefine((b, ctx) => {
    const seen = new Set<string>();
    b.figures.forEach((f, i) => {
      const key = supplyDemandFigureKey(f.attribute, f.unit);
      if (seen.has(key)) {
        ctx.addIssue({ code: 'custom', path: ['figures', i], message: `duplicate figure ${f.attribute} (${f.unit})` });
      }
      seen.add(key);
    });
  });
export type SupplyDemandBatch = z.infer<typeof SupplyDemandBatch>;

/** The key of a figure within its balance sheet: its attribute and its unit (WASDE states some rows in two units). */
export function supplyDemandFigureKey(attribute: string, unit: string): string {
  return `${attribute}|${unit}`;
}

/** The read model's document id of a balance sheet: commodity, region and marketing year. */
export function supplyDemandBucketId(commodity: string, region: string, marketingYear: string): string {
  return `${commodity}:${region}:${marketingYear}`;
}

/** The edition of a release instant: its month in New York (WASDE is released in its own month, a re-post too). */
export function editionOf(publishedAt: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/New_York',
    year: 'numeric',
    month: '2-digit',
  }).formatToParts(new Date(publishedAt));
  const year = parts.find((p) => p.type === 'year')?.value ?? '0000';
  const month = parts.find((p) => p.type === 'month')?.value ?? '01';
  return `${year}-${month}`;
}

// --- the query ------------------------------------------------------------------------------------

export const SUPPLY_DEMAND_VIEWS = ['figures', 'editions'] as const;
export const DEFAULT_SUPPLY_DEMAND_REGION = 'united_states';

export const SupplyDemandQuery = documented(
  z
    .strictObject({
      region: SupplyDemandRegion.default(DEFAULT_SUPPLY_DEMAND_REGION).meta({
        description:
          'united_states (the default), world, or a country or group of the world tables in snake_case. A region ' +
          'the commodity has no figures for is a 400 naming region and listing those it has.',
      }),
      marketing_year: MarketingYear.optional().meta({
        description:
          'Only this marketing year (YYYY/YY). A year the region has no figures for is a 400 naming marketing_year.',
      }),
      attribute: SupplyDemandAttribute.optional().meta({
        description:
          'Only this attribute (snake_case of the row name, or stocks_to_use). One the region has no figures for is ' +
          'a 400 naming attribute and listing those it has.',
      }),
      view: z
        .enum(SUPPLY_DEMAND_VIEWS)
        .default('figures')
        .meta({
          description:
            'figures (the default): the figures in force, newest marketing year first. editions: one figure ' +
            'across every edition that published it, oldest first, each with its change from the previous edition; ' +
            'needs marketing_year and attribute (else a 400 naming the one missing).',
        }),
      as_of: asOf.meta({
        description: `${asOfDescription} Editions released later are absent.`,
        type: 'string',
        pattern: AS_OF_PATTERN,
        examples: ['2026-06-01'],
      }),
      first_release: z
        .enum(['true', 'false'])
        .transform((v) => v === 'true')
        .optional()
        .meta({
          description:
            'true: each figure as first published (with as_of: the first version published by then) instead of ' +
            'the newest. meta.first_release echoes it.',
          type: 'boolean',
        }),
      include: z
        .enum(['revisions'])
        .optional()
        .meta({
          description:
            'revisions: each figure carries `revisions`, its earlier versions (oldest first) with their edition ' +
            'and published_at.',
        }),
      page,
      per_page: perPage,
    })
    .superRefine((q, ctx) => {
      if (q.view !== 'editions') return;
      for (const name of ['marketing_year', 'attribute'] as const) {
        if (q[name] === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: `view=editions shows one figure across editions: give ${name}`,
          });
        }
      }
    }),
  { title: 'SupplyDemandQuery' },
);
export type SupplyDemandQuery = z.infer<typeof SupplyDemandQuery>;

// --- the answer -----------------------------------------------------------------------------------

const figurePublication = {
  edition: Edition,
  published_at: z.iso.datetime({ offset: true }).meta({
    description:
      'When this version was published (RFC 3339): 12:00 New York on the edition release date, or the time of ' +
      'a corrected re-post.',
  }),
  published_at_estimated: z
    .boolean()
    .optional()
    .meta({ description: 'Present (true) when published_at comes from the release calendar, not the source.' }),
  status: SupplyDemandStatus,
};

export const SupplyDemandRevision = documented(z.object({ value: z.number(), ...figurePublication }), {
  id: 'SupplyDemandRevision',
  description: 'An earlier version of a figure (include=revisions), with the edition that published it.',
});

export const SupplyDemandFigure = documented(
  z.object({
    marketing_year: MarketingYear,
    region: SupplyDemandRegion,
    attribute: SupplyDemandAttribute,
    value: z.number(),
    unit: z.string().min(1).max(60).meta({ description: 'The unit as USDA states it (Million Bushels, …).' }),
    ...figurePublication,
    first_seen_at: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'When this service first ingested that release (RFC 3339).' }),
    derived: z
      .literal(true)
      .optional()
      .meta({
        description:
          'Present (true) on a figure this service computes rather than USDA publishes: stocks_to_use = ending ' +
          'stocks / total use, as a ratio.',
      }),
    change: z.number().nullable().optional().meta({
      description:
        'view=editions: this edition minus the previous edition that published the figure (null for the first).',
    }),
    failed_checks: z
      .array(SupplyDemandCheck)
      .optional()
      .meta({ description: 'The consistency checks the balance sheet of this version failed; absent when none.' }),
    revisions: z
      .array(SupplyDemandRevision)
      .optional()
      .meta({ description: 'With include=revisions: the earlier versions, oldest first (empty when never revised).' }),
  }),
  {
    id: 'SupplyDemandFigure',
    description: 'One figure of a WASDE balance sheet: a commodity, region, marketing year and attribute.',
  },
);
export type SupplyDemandFigure = z.infer<typeof SupplyDemandFigure>;

export const SupplyDemandMeta = documented(
  z
    .object({
      commodity_id: CommodityId,
      region: SupplyDemandRegion,
      view: z.enum(SUPPLY_DEMAND_VIEWS),
      page: z.int().min(1),
      per_page: z.int().min(1).max(100),
      total: z.int().min(0),
      total_pages: z.int().min(0),
      source: z.string().max(200).optional().meta({ description: 'Where the figures come from (`<source>:<file>`).' }),
      attribution: z
        .string()
        .max(300)
        .meta({ description: 'USDA World Agricultural Outlook Board, as it asks to be cited.' }),
      as_of: z.iso.datetime({ offset: true }).optional().meta({ description: 'With as_of: its instant (UTC).' }),
      first_release: z.literal(true).optional(),
      request_id: RequestId,
    })
    .refine((m) => m.total_pages === Math.ceil(m.total / m.per_page), {
      message: 'total_pages must be ceil(total / per_page)',
      path: ['total_pages'],
    }),
  {
    id: 'SupplyDemandMeta',
    description: 'Pagination, the attribution and the point in time of a supply and demand answer.',
  },
);

export const SupplyDemandResponse = documented(
  z.object({ data: z.array(SupplyDemandFigure), meta: SupplyDemandMeta }),
  { id: 'SupplyDemandResponse' },
);
export type SupplyDemandResponse = z.infer<typeof SupplyDemandResponse>;
