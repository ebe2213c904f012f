import {
  SUPPLY_DEMAND_SERIES_TYPE,
  supplyDemandBucketId,
  supplyDemandFigureKey,
  type DataEvent,
  type SupplyDemandBatch,
} from '@cds/contracts';
import { releaseFolder, type ItemKind, type StoredFigure, type SupplyDemandBucketDoc } from '@cds/read-models';
import { localParts } from '@cds/schedule';
import { firstSeenOf, stampOf } from '../releases.ts';
import {
  changeLog,
  commodityOf,
  laterInstant,
  nextMeta,
  readPath,
  sourceOf,
  withVersions,
  type EvolvedDoc,
  type Projection,
} from '../types.ts';

type FiguresRecorded = DataEvent & { type: 'supply_demand.figures.recorded' };

/** The version of the reducer and document shape (`_meta.version`). */
const VERSION = 1;

function sameChecks(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((c, i) => c === y[i]);
}

/**
 * Figures are "dated" by their key within the sheet (`k`: attribute and unit) and equal when their
 * value, unit, status and failed checks are (not their release): an edition that repeats a figure
 * only confirms it, one that turns a projection into an estimate or fails a check makes a version.
 */
export const FIGURE_KIND: ItemKind<StoredFigure> = {
  dateOf: (f) => f.k,
  same: (a, b) => a.v === b.v && a.u === b.u && a.s === b.s && sameChecks(a.x, b.x),
};

/** The stored figures of one release of a sheet, sorted by key, each with the release's status and failed checks. */
export function figuresOf(batch: SupplyDemandBatch): StoredFigure[] {
  const checks = batch.failed_checks === undefined ? undefined : [...batch.failed_checks].sort();
  return batch.figures
    .map((f): StoredFigure => {
      const stored: StoredFigure = {
        k: supplyDemandFigureKey(f.attribute, f.unit),
        a: f.attribute,
        u: f.unit,
        v: f.value,
        s: batch.status,
      };
      if (checks !== undefined) stored.x = checks;
      return stored;
    })
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
}

/** The New York date of a release instant: the edition's release date (WASDE publishes at 12:00 there). */
export function releaseDateOf(publishedAt: string): string {
  return localParts(new Date(publishedAt)).date;
}

/**
 * supply_demand: one document per balance sheet, a commodity's region and marketing year
 * (`SupplyDemandBucketDoc`, `supplyDemandBucketId`). Each event is one release of the sheet (an
 * edition, or a corrected re-post: its `published_at`, first seen at the event's `occurred_at`)
 * carrying every figure of the sheet, keyed by attribute and unit; the releases are folded with a
 * `releaseFolder` (libs/read-models versions.ts), as the series and COT buckets fold theirs:
 * `figures` holds the newest version of each figure by publication time, `revised` the older ones,
 * `releases` the releases, so an edition folded after a later one lands in its place and a replay
 * changes nothing. A release that failed a consistency check stores its checks on its figures
 * (`x`). `source` is the provenance of the newest release, `last_updated` the latest `occurred_at`
 * of the events that changed the sheet (a max). A batch's events are folded at once (`evolveAll`).
 */
export const supplyDemandProjection: Projection<SupplyDemandBucketDoc> = {
  name: 'supply_demand',
  version: VERSION,
  handles: ['supply_demand.figures.recorded'],
  filterSubject: 'cds.data.supply_demand.>',
  keyOf(event) {
    if (event.type !== 'supply_demand.figures.recorded') return [];
    const { commodity_id: commodity, region, marketing_year: year } = event.data;
    return [supplyDemandBucketId(commodity, region, year)];
  },
  commodityOf,
  changeOf(event) {
    if (event.type !== 'supply_demand.figures.recorded') return undefined;
    const { commodity_id: commodity, region, marketing_year: year } = event.data;
    const date = releaseDateOf(event.data.published_at);
    return {
      type: 'supply_demand.updated',
      commodity,
      topic: SUPPLY_DEMAND_SERIES_TYPE,
      first_date: date,
      newest_date: date,
      path: readPath('supplyDemand', commodity, { region, marketing_year: year }),
    };
  },
  initial(id) {
    // `${commodity}:${region}:${YYYY/YY}`: commodity ids are UPPER_SNAKE_CASE, regions snake_case.
    const [commodityId = '', region = '', marketingYear = ''] = id.split(':');
    return {
      _id: id,
      commodity_id: commodityId,
      region,
      marketing_year: marketingYear,
      figures: [],
      _meta: { position: 0, version: VERSION },
    };
  },
  evolve(doc, event: DataEvent, position) {
    return evolveAll(doc, [{ event, position }]).doc;
  },
  evolveAll,
};

function ofSheet(doc: SupplyDemandBucketDoc, event: DataEvent): event is FiguresRecorded {
  return (
    event.type === 'supply_demand.figures.recorded' &&
    event.data.commodity_id === doc.commodity_id &&
    event.data.region === doc.region &&
    event.data.marketing_year === doc.marketing_year
  );
}

function evolveAll(
  doc: SupplyDemandBucketDoc,
  events: readonly { event: DataEvent; position: number }[],
): EvolvedDoc<SupplyDemandBucketDoc> {
  const held = { current: doc.figures, revised: doc.revised ?? [], releases: doc.releases ?? [] };
  const folder = releaseFolder(held, FIGURE_KIND);
  // Which events the document reflects (the runner's `reflected`): the latest event that changed
  // each figure's versions. The versions' order is publication time (the folder).
  const log = changeLog(doc._meta);
  let { source, last_updated: lastUpdated } = doc;
  // the publication of the release `source` came from: the newest one wins, whatever the arrival order
  let sourceAt = doc.releases?.at(-1)?.p ?? '';
  for (const { event, position: at } of events) {
    if (!ofSheet(doc, event)) continue;
    const firstSeen = firstSeenOf(event);
    const stamp = stampOf(event.data, () => firstSeen, firstSeen);
    const changedKeys = new Set<string>();
    if (!folder.fold(stamp, figuresOf(event.data), changedKeys)) continue;
    lastUpdated = laterInstant(lastUpdated, event.occurred_at);
    if (stamp.publishedAt >= sourceAt) {
      sourceAt = stamp.publishedAt;
      source = sourceOf(event) ?? source;
    }
    log.record(at, changedKeys);
  }
  const { changedBy } = log;
  if (changedBy.length === 0) return { doc, changedBy };
  const folded = folder.parts();
  const next: SupplyDemandBucketDoc = {
    _id: doc._id,
    commodity_id: doc.commodity_id,
    region: doc.region,
    marketing_year: doc.marketing_year,
    figures: folded.current,
    _meta: nextMeta(doc._meta, VERSION, log.position, log.parts),
  };
  withVersions(next, folded);
  if (source !== undefined) next.source = source;
  if (lastUpdated !== undefined) next.last_updated = lastUpdated;
  return { doc: next, changedBy };
}
