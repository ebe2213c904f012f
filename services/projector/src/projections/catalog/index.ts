import {
  cotDatasetOf,
  cotSeriesType,
  SUPPLY_DEMAND_SERIES_TYPE,
  type CatalogEntry,
  type DataEvent,
} from '@cds/contracts';
import type { CatalogDoc, StoredSeriesDescriptor } from '@cds/read-models';
import { cotReportRelease } from '../cot/index.ts';
import { earlierInstant, firstSeenOf, stampOf } from '../releases.ts';
import { releaseDateOf } from '../supply-demand/index.ts';
import { commodityOf, cotReportSource, laterInstant, nextMeta, sourceOf, type Projection } from '../types.ts';

/**
 * The stored catalog document. Series may arrive before the commodity's catalog event; until
 * then the document is `listed: false` and has no name or category, so those two are optional
 * here (a `listed: true` document always has them, as `CatalogDoc` describes).
 */
export type CatalogState = Omit<CatalogDoc, 'name' | 'category'> & Partial<Pick<CatalogDoc, 'name' | 'category'>>;

const ENTRY = 'entry';
const ENTRY_FIELDS = [
  'name',
  'symbol',
  'category',
  'exchange',
  'unit',
  'description',
  'contract_size',
  'tick_size',
  'identifiers',
  'price_note',
] as const satisfies readonly (keyof CatalogEntry)[];

function descriptorOf(event: DataEvent): { key: string; descriptor: StoredSeriesDescriptor } | undefined {
  if (event.type === 'series.points.recorded') {
    const dates = event.data.points.map((p) => p.date).sort();
    const d: StoredSeriesDescriptor = {
      type: event.data.series_type,
      frequency: event.data.frequency,
      first_date: dates[0] ?? '',
      last_date: dates.at(-1) ?? '',
    };
    if (event.data.unit !== undefined) d.unit = event.data.unit;
    const source = sourceOf(event);
    if (source !== undefined) d.source = source;
    if (event.data.price_basis !== undefined) d.price_basis = event.data.price_basis;
    d.last_updated = event.occurred_at;
    const firstSeen = firstSeenOf(event);
    d.first_published_at = stampOf(event.data, () => firstSeen, firstSeen).publishedAt;
    return { key: event.data.series_type, descriptor: d };
  }
  if (event.type === 'cot.reports.recorded') {
    const dates = event.data.reports.map((r) => r.report_date).sort();
    // one descriptor per COT dataset (a format in a scope): cot_legacy, cot_legacy_combined, cot_cit, …
    const type = cotSeriesType(cotDatasetOf(event.data));
    const d: StoredSeriesDescriptor = {
      type,
      frequency: 'weekly',
      first_date: dates[0] ?? '',
      last_date: dates.at(-1) ?? '',
      last_updated: event.occurred_at,
    };
    // the source of the batch's newest report (a batch holds one commodity's reports of one year)
    const newest = [...event.data.reports].sort((a, b) => (a.report_date < b.report_date ? 1 : -1))[0];
    const source = newest === undefined ? undefined : cotReportSource(event, newest);
    if (source !== undefined) d.source = source;
    const firstSeen = firstSeenOf(event);
    let firstPublished: string | undefined;
    for (const r of event.data.reports) {
      firstPublished = earlierInstant(firstPublished, cotReportRelease(r, firstSeen).publishedAt);
    }
    if (firstPublished !== undefined) d.first_published_at = firstPublished;
    return { key: type, descriptor: d };
  }
  if (event.type === 'supply_demand.figures.recorded') return supplyDemandDescriptor(event);
  return undefined;
}

/**
 * The supply_demand descriptor an event gives: monthly, the edition's release date (New York) as
 * first and last date, the sheet's region, its publication as first_published_at.
 */
function supplyDemandDescriptor(event: DataEvent & { type: 'supply_demand.figures.recorded' }): {
  key: string;
  descriptor: StoredSeriesDescriptor;
} {
  const firstSeen = firstSeenOf(event);
  const publishedAt = stampOf(event.data, () => firstSeen, firstSeen).publishedAt;
  const date = releaseDateOf(publishedAt);
  const d: StoredSeriesDescriptor = {
    type: SUPPLY_DEMAND_SERIES_TYPE,
    frequency: 'monthly',
    first_date: date,
    last_date: date,
    last_updated: event.occurred_at,
    first_published_at: publishedAt,
    regions: [event.data.region],
  };
  const source = sourceOf(event);
  if (source !== undefined) d.source = source;
  return { key: SUPPLY_DEMAND_SERIES_TYPE, descriptor: d };
}

/** The union of two sorted region lists, sorted (absent when neither has any). */
function mergedRegions(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  if (a === undefined && b === undefined) return undefined;
  return [...new Set([...(a ?? []), ...(b ?? [])])].sort();
}

/**
 * catalog: one document per commodity. Entry fields are last-writer-wins on the stream position
 * (`_meta.parts.entry`); each series descriptor keeps the min first_date and max last_date seen
 * (points are never deleted), and its frequency/unit/source/price_basis are last-writer-wins
 * (`_meta.parts["series:<type>"]`); its `last_updated` is the latest `occurred_at` of the events
 * that carried data of the series (a max, so replay and order change nothing); its
 * `first_published_at` the earliest release stamp of those events (a min, likewise), the bound of
 * `as_of` queries. The supply_demand descriptor also keeps the regions the commodity has balance
 * sheets for (a sorted union), and its dates are the release dates of the first and newest edition.
 */
export const catalogProjection: Projection<CatalogState> = {
  name: 'catalog',
  // 2: descriptors carry source and last_updated; entries carry identifiers. 3: price_basis, price_note.
  // 4: descriptors carry first_published_at.
  version: 4,
  handles: [
    'catalog.commodity.upserted',
    'series.points.recorded',
    'cot.reports.recorded',
    'supply_demand.figures.recorded',
  ],
  // Descriptors need series and cot events too, i.e. the whole data stream.
  filterSubject: 'cds.data.>',
  keyOf(event) {
    return [commodityOf(event)];
  },
  commodityOf,
  initial(id) {
    return { _id: id, id, listed: false, series: {}, _meta: { position: 0, version: 4, parts: {} } };
  },
  evolve(doc, event: DataEvent, position) {
    const parts: Record<string, number> = { ...doc._meta.parts };
    if (event.type === 'catalog.commodity.upserted') {
      if ((parts[ENTRY] ?? 0) >= position) return doc;
      parts[ENTRY] = position;
      const next: CatalogState = {
        _id: doc._id,
        id: doc.id,
        listed: true,
        series: doc.series,
        _meta: nextMeta(doc._meta, catalogProjection.version, position, parts),
      };
      const target = next as unknown as Record<string, unknown>;
      for (const f of ENTRY_FIELDS) if (event.data[f] !== undefined) target[f] = event.data[f];
      return next;
    }
    const found = descriptorOf(event);
    if (found === undefined) return doc;
    const { key, descriptor } = found;
    const part = `series:${key}`;
    const old = doc.series[key];
    let merged: StoredSeriesDescriptor;
    if (old === undefined) {
      merged = descriptor;
    } else {
      const newer = (parts[part] ?? 0) < position;
      const attrs = newer ? descriptor : old;
      merged = {
        type: old.type,
        frequency: attrs.frequency,
        first_date: descriptor.first_date < old.first_date ? descriptor.first_date : old.first_date,
        last_date: descriptor.last_date > old.last_date ? descriptor.last_date : old.last_date,
      };
      if (attrs.unit !== undefined) merged.unit = attrs.unit;
      if (attrs.source !== undefined) merged.source = attrs.source;
      if (attrs.price_basis !== undefined) merged.price_basis = attrs.price_basis;
      const lastUpdated = laterInstant(old.last_updated, descriptor.last_updated);
      if (lastUpdated !== undefined) merged.last_updated = lastUpdated;
      const firstPublished = earlierInstant(old.first_published_at, descriptor.first_published_at);
      if (firstPublished !== undefined) merged.first_published_at = firstPublished;
      const regions = mergedRegions(old.regions, descriptor.regions);
      if (regions !== undefined) merged.regions = regions;
    }
    parts[part] = Math.max(parts[part] ?? 0, position);
    if (doc._meta.position >= position && old !== undefined && sameDescriptor(old, merged)) return doc;
    return {
      ...doc,
      series: { ...doc.series, [key]: merged },
      _meta: nextMeta(doc._meta, catalogProjection.version, position, parts),
    };
  },
};

function sameDescriptor(a: StoredSeriesDescriptor, b: StoredSeriesDescriptor): boolean {
  return (
    a.type === b.type &&
    a.frequency === b.frequency &&
    a.first_date === b.first_date &&
    a.last_date === b.last_date &&
    a.unit === b.unit &&
    a.source === b.source &&
    a.price_basis === b.price_basis &&
    a.last_updated === b.last_updated &&
    a.first_published_at === b.first_published_at &&
    (a.regions ?? []).join() === (b.regions ?? []).join()
  );
}
