/**
 * The public facts of every data source, one row each: what the API and the docs say about it.
 * A source's code lives in `services/ingest/src/sources/<name>/`, and the ingest registry
 * (`services/ingest/src/sources/registry.ts`) checks at type level that each registered source has
 * its row here. Every other list of sources (the sync status names, attributions, licences, the
 * release calendars in `@cds/schedule`) is derived from this table; docs/adding-a-source.md says
 * how to add one.
 */
export interface SourceFacts {
  /** How the API names it, e.g. in GET /status: `cftc` (CFTC Commitments of Traders). */
  title: string;
  /** How it asks to be cited (served with every series), when it is a publisher. */
  attribution?: string;
  /** The licence of its data (bulk files), when it is a publisher. */
  licence?: string;
  /** The licence line a snapshot manifest carries for it (data/snapshot/SOURCES.md). */
  snapshotLicence?: string;
  /**
   * Kept up to date by `ingest sync` on its publisher's release calendar (`@cds/schedule`
   * `SOURCE_CALENDARS`), its freshness reported by GET /status.
   */
  synced: boolean;
  /** The publisher's release calendar, for a synced source. */
  calendar?: SourceCalendar;
}

/**
 * The release rules `@cds/schedule` computes a publisher's releases with (RELEASE_RULES there):
 * the CFTC's weekly Commitments of Traders, EIA's Weekly Petroleum Status Report, NASS's
 * quarter-end reports, the World Bank's monthly Pink Sheet and AMS's daily LM_HG201.
 */
export const RELEASE_RULES = [
  'cot-weekly',
  'wpsr-weekly',
  'quarter-end-reports',
  'pink-sheet-monthly',
  'lm-hg201-daily',
] as const;
export type ReleaseRule = (typeof RELEASE_RULES)[number];

/** When a synced source publishes, and how late it may post. */
export interface SourceCalendar {
  /** The rule its releases follow. */
  rule: ReleaseRule;
  /**
   * How long after a release's scheduled time the synced data may still lack it before the source
   * counts as late: the CronJob runs 5 minutes after the release, a sync takes minutes, and the
   * publishers sometimes post late; two hours (CFTC: 17:30 ET on a Friday) leave room for a retry.
   */
  lateGraceHours: number;
}

const PUBLIC_DOMAIN = 'Public domain (U.S. government work, 17 U.S.C. § 105)';

/** Every source, in the order the API lists them (GET /status) and `ingest sync` runs them. */
export const SOURCES = {
  cftc: {
    title: 'CFTC Commitments of Traders',
    attribution: 'U.S. Commodity Futures Trading Commission: Commitments of Traders (public domain)',
    licence: PUBLIC_DOMAIN,
    snapshotLicence: 'U.S. Commodity Futures Trading Commission: public domain (U.S. government work)',
    synced: true,
    calendar: { rule: 'cot-weekly', lateGraceHours: 2 },
  },
  eia: {
    title: 'U.S. Energy Information Administration',
    attribution: 'Source: U.S. Energy Information Administration (public domain)',
    licence: PUBLIC_DOMAIN,
    snapshotLicence:
      'U.S. Energy Information Administration: public domain (U.S. government work); cite "Source: U.S. EIA"',
    synced: true,
    calendar: { rule: 'wpsr-weekly', lateGraceHours: 2 },
  },
  nass: {
    title: 'USDA National Agricultural Statistics Service',
    attribution: 'USDA National Agricultural Statistics Service: Quick Stats (public domain)',
    licence: PUBLIC_DOMAIN,
    snapshotLicence: 'USDA National Agricultural Statistics Service: public domain (U.S. government work)',
    synced: true,
    calendar: { rule: 'quarter-end-reports', lateGraceHours: 2 },
  },
  ams: {
    title: 'USDA Agricultural Marketing Service: Market News',
    attribution: 'USDA Agricultural Marketing Service: Market News (public domain)',
    licence: PUBLIC_DOMAIN,
    snapshotLicence: 'USDA Agricultural Marketing Service: public domain (U.S. government work)',
    synced: true,
    calendar: { rule: 'lm-hg201-daily', lateGraceHours: 2 },
  },
  worldbank: {
    title: 'World Bank Commodity Price Data, the Pink Sheet',
    attribution: 'The World Bank: Commodity Price Data (The Pink Sheet), CC BY 4.0',
    licence: 'CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)',
    snapshotLicence:
      'The World Bank: Commodity Price Data (The Pink Sheet), CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)',
    synced: true,
    // The Pink Sheet has no announced hour and was seen posted late in the afternoon: until 18:00 ET the next day.
    calendar: { rule: 'pink-sheet-monthly', lateGraceHours: 30 },
  },
  ohlcv: { title: 'OHLCV files (daily bars a user imports)', synced: false },
  demo: {
    title: 'Generated demonstration data',
    attribution: 'Generated demonstration data: not from any official source',
    licence: 'Generated demonstration data (no licence terms)',
    synced: false,
  },
  snapshot: { title: 'The bundled snapshot of real data (carries its records’ own sources)', synced: false },
} as const satisfies Record<string, SourceFacts>;

export type PublicSourceName = keyof typeof SOURCES;
type Synced = { [K in PublicSourceName]: (typeof SOURCES)[K]['synced'] extends true ? K : never }[PublicSourceName];

/** Every source name, in table order. */
export const PUBLIC_SOURCE_NAMES = Object.keys(SOURCES) as PublicSourceName[];

/** The sources `ingest sync` keeps up to date, in table order. */
export const SYNC_SOURCE_NAMES = PUBLIC_SOURCE_NAMES.filter((n) => SOURCES[n].synced) as [Synced, ...Synced[]];

/** The facts row of a provenance `source` (`worldbank:GOLD`, `eia:RWTC`, `demo`), or undefined. */
export function sourceFactsOf(source: string | undefined): SourceFacts | undefined {
  if (source === undefined) return undefined;
  const colon = source.indexOf(':');
  const name = colon === -1 ? source : source.slice(0, colon);
  return Object.hasOwn(SOURCES, name) ? SOURCES[name as PublicSourceName] : undefined;
}
