import type { DataEvent, SeriesPointRecord } from '@cds/contracts';
import { seriesBucketId, type SeriesBucketDoc, type StoredPoint } from '@cds/read-models';
import { commodityOf, dateRange, laterInstant, nextMeta, readPath, sourceOf, type Projection } from '../types.ts';

/** Part key of the bucket attributes (frequency, unit); point parts are keyed by date. */
const ATTRS = 'attrs';

function yearOf(date: string): number {
  return Number(date.slice(0, 4));
}

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
 * series: one bucket per commodity, type and calendar year (`SeriesBucketDoc`). Points merge by
 * date as per-date last-writer-wins on the stream position (`_meta.parts[date]`), so a later
 * event's point replaces an earlier one for the same date whatever order they are applied in.
 * `source` is last-writer-wins with the bucket attributes; `last_updated` is the latest
 * `occurred_at` of every event with points in the bucket (a max: replay and order change nothing).
 */
export const seriesProjection: Projection<SeriesBucketDoc> = {
  name: 'series',
  // 2: points and parts packed as JSON text. 3: source and last_updated.
  version: 3,
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
      _meta: { position: 0, version: 3, parts: {} },
    };
  },
  evolve(doc, event: DataEvent, position) {
    if (event.type !== 'series.points.recorded') return doc;
    if (!event.data.points.some((p) => yearOf(p.date) === doc.year)) return doc;
    const parts: Record<string, number> = { ...doc._meta.parts };
    const byDate = new Map(doc.points.map((p) => [p.d, p] as const));
    let changed = false;
    const lastUpdated = laterInstant(doc.last_updated, event.occurred_at);
    if (lastUpdated !== doc.last_updated) changed = true;
    for (const p of event.data.points) {
      if (yearOf(p.date) !== doc.year) continue;
      if ((parts[p.date] ?? 0) >= position) continue;
      byDate.set(p.date, toStored(p));
      parts[p.date] = position;
      changed = true;
    }
    let { frequency, unit, source } = doc;
    if ((parts[ATTRS] ?? 0) < position) {
      frequency = event.data.frequency;
      unit = event.data.unit;
      source = sourceOf(event);
      parts[ATTRS] = position;
      changed = true;
    }
    if (!changed && doc._meta.position >= position) return doc;
    const points = [...byDate.values()].sort((a, b) => (a.d < b.d ? -1 : a.d > b.d ? 1 : 0));
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
      _meta: nextMeta(doc._meta, seriesProjection.version, position, parts),
    };
    if (unit !== undefined) next.unit = unit;
    if (source !== undefined) next.source = source;
    if (lastUpdated !== undefined) next.last_updated = lastUpdated;
    return next;
  },
};
