import type { DataEvent, SeriesPointRecord } from '@cds/contracts';
import {
  releaseFolder,
  seriesBucketId,
  yearOf,
  type ItemKind,
  type SeriesBucketDoc,
  type StoredPoint,
} from '@cds/read-models';
import { firstSeenOf, stampOf } from '../releases.ts';
import {
  changeLog,
  commodityOf,
  dateRange,
  laterInstant,
  nextMeta,
  readPath,
  withVersions,
  sourceOf,
  type EvolvedDoc,
  type Projection,
} from '../types.ts';

/** Part key of the bucket attributes (frequency, unit, source): last-writer-wins on the stream position. */
const ATTRS = 'attrs';

/** Points are dated by `d` and equal when their numbers are (not their release). */
export const POINT_KIND: ItemKind<StoredPoint> = {
  dateOf: (p) => p.d,
  same: (a, b) => a.v === b.v && a.o === b.o && a.h === b.h && a.l === b.l && a.c === b.c && a.vol === b.vol,
};

function toStored(p: SeriesPointRecord): StoredPoint {
  const s: StoredPoint = { d: p.date, v: p.value };
  if (p.open !== undefined) s.o = p.open;
  if (p.high !== undefined) s.h = p.high;
  if (p.low !== undefined) s.l = p.low;
  if (p.close !== undefined) s.c = p.close;
  if (p.volume !== undefined) s.vol = p.volume;
  return s;
}

/**
 * series: one bucket per commodity, type and calendar year (`SeriesBucketDoc`). Each event is a
 * release of its points (stamped with the batch's `published_at`, else its `occurred_at`,
 * estimated) folded with a `releaseFolder`: `points` holds the newest version of each date by
 * publication time, `revised` the older ones, `releases` the releases, so an older vintage applied
 * after a newer one never brings old values back, and a replay changes nothing. Frequency, unit
 * and `source` are last-writer-wins on the stream position (`_meta.parts.attrs`); `last_updated`
 * is the latest `occurred_at` of every event with points in the bucket (a max).
 *
 * An event that changes nothing (its release already known, every value the one in force, the
 * same attributes, no later `occurred_at`) leaves the document as it is: no write, no notice. A
 * batch's events are folded at once (`evolveAll`): the bucket is indexed once, each event costs
 * the dates it carries, and the document is rebuilt once.
 */
export const seriesProjection: Projection<SeriesBucketDoc> = {
  name: 'series',
  // 2: points and parts packed as JSON text. 3: source and last_updated. 4: versions (revised, releases).
  version: 4,
  handles: ['series.points.recorded'],
  filterSubject: 'cds.data.series.>',
  keyOf(event) {
    if (event.type !== 'series.points.recorded') return [];
    const years = new Set(event.data.points.map((p) => yearOf(p.date)));
    return [...years].sort().map((y) => seriesBucketId(event.data.commodity_id, event.data.series_type, y));
  },
  commodityOf,
  changeOf(event) {
    if (event.type !== 'series.points.recorded') return undefined;
    const { commodity_id: commodity, series_type: type, points } = event.data;
    const range = dateRange(points.map((p) => p.date));
    if (range === undefined) return undefined;
    return {
      type: 'series.updated',
      commodity,
      topic: type,
      series_type: type,
      first_date: range.first,
      newest_date: range.newest,
      path: readPath('series', commodity, { type, start_date: range.first, end_date: range.newest }),
    };
  },
  initial(id) {
    // `${commodity}:${type}:${year}`; commodity ids are UPPER_SNAKE_CASE, so ':' only separates.
    const [commodityId = '', type = '', year = '0'] = id.split(':');
    return {
      _id: id,
      commodity_id: commodityId,
      type: type as SeriesBucketDoc['type'],
      year: Number(year),
      frequency: 'daily',
      first_date: '',
      last_date: '',
      count: 0,
      points: [],
      _meta: { position: 0, version: 4, parts: {} },
    };
  },
  evolve(doc, event: DataEvent, position) {
    return evolveAll(doc, [{ event, position }]).doc;
  },
  evolveAll,
};

function evolveAll(
  doc: SeriesBucketDoc,
  events: readonly { event: DataEvent; position: number }[],
): EvolvedDoc<SeriesBucketDoc> {
  const held = { current: doc.points, revised: doc.revised ?? [], releases: doc.releases ?? [] };
  const folder = releaseFolder(held, POINT_KIND);
  // The part positions only say which events the document reflects (the runner's `reflected`:
  // change records after a crash): the latest event that changed each date's versions, and the
  // one that set the attributes. The points' order is their publication time (the folder).
  const log = changeLog(doc._meta);
  let attrsAt = doc._meta.parts?.[ATTRS] ?? 0;
  let { frequency, unit, source, last_updated: lastUpdated } = doc;
  for (const { event, position: at } of events) {
    if (event.type !== 'series.points.recorded') continue;
    const items = event.data.points.filter((p) => yearOf(p.date) === doc.year).map(toStored);
    if (items.length === 0) continue;
    const firstSeen = firstSeenOf(event);
    const changedDates = new Set<string>();
    let changed = folder.fold(
      stampOf(event.data, () => firstSeen, firstSeen),
      items,
      changedDates,
    );
    const later = laterInstant(lastUpdated, event.occurred_at);
    if (later !== lastUpdated) {
      lastUpdated = later;
      changed = true;
    }
    if (attrsAt < at) {
      const eventSource = sourceOf(event);
      // other attributes change the bucket; the same ones only move their position along with a change
      if (frequency !== event.data.frequency || unit !== event.data.unit || source !== eventSource) changed = true;
      if (changed) {
        frequency = event.data.frequency;
        unit = event.data.unit;
        source = eventSource;
        attrsAt = at;
      }
    }
    if (changed) log.record(at, changedDates);
  }
  const { changedBy } = log;
  if (changedBy.length === 0) return { doc, changedBy };
  const folded = folder.parts();
  const points = folded.current;
  const next: SeriesBucketDoc = {
    _id: doc._id,
    commodity_id: doc.commodity_id,
    type: doc.type,
    year: doc.year,
    frequency,
    first_date: points[0]?.d ?? '',
    last_date: points.at(-1)?.d ?? '',
    count: points.length,
    points,
    _meta: nextMeta(doc._meta, seriesProjection.version, log.position, { ...log.parts, [ATTRS]: attrsAt }),
  };
  withVersions(next, folded);
  if (unit !== undefined) next.unit = unit;
  if (source !== undefined) next.source = source;
  if (lastUpdated !== undefined) next.last_updated = lastUpdated;
  return { doc: next, changedBy };
}
