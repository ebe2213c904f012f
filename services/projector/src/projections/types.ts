import { ROUTE_PATHS, cotReportProvenance, type ChangeRecord, type DataEvent } from '@cds/contracts';
import type { ProjectionMeta, ReadModelName } from '@cds/read-models';

/** Every read-model document carries its id and where it was last written from. */
export interface ProjectedDoc {
  _id: string;
  _meta: ProjectionMeta;
}

export type DataEventType = DataEvent['type'];

/** What a change record (`ChangeRecord`, libs/contracts) says of one event, but its id and when it landed. */
export type EventChange = Omit<ChangeRecord, 'id' | 'landed_at'>;

/**
 * A projection is data plus a pure reducer: no I/O, clock or randomness.
 *
 * The runner loads the documents `keyOf(event)` names, folds `evolve(stored ?? initial(id), event,
 * position)` for each and writes the ones that changed. Reducers must be idempotent (applying an
 * event the document already reflects returns an equal document) and order-independent per part
 * (an older event applied after a newer one changes only the parts the newer one did not write),
 * so redelivery, replay and two replicas racing on one consumer all converge. See
 * docs/architecture.md, "Projections".
 */
export interface Projection<D extends ProjectedDoc = ProjectedDoc> {
  name: ReadModelName;
  /** Bumped when the document shape or the reducer changes meaning; stored in `_meta.version`. */
  version: number;
  handles: readonly DataEventType[];
  /** JetStream subject filter of this projection's consumer (nats-server 2.9: one filter). */
  filterSubject: string;
  /**
   * Optional: most event bytes the worker hands it as one batch, when its events are large enough
   * that DEFAULT_PROJECTION_BATCH of them would not fit in memory. Default DEFAULT_PROJECTION_BATCH_BYTES.
   */
  batchBytes?: number;
  /** Ids of the documents an event touches (empty when the event is not handled). */
  keyOf(event: DataEvent): string[];
  /** The commodity an event is about (for the `projected` notification). */
  commodityOf(event: DataEvent): string;
  /** The blank document for an id, at position 0. */
  initial(id: string): D;
  /** The next document; never mutates `doc`. */
  evolve(doc: D, event: DataEvent, position: number): D;
  /**
   * Optional: the events of a batch that touch `doc`, in stream order, folded at once (the series
   * and COT buckets share the work of their versions between them). The result must equal
   * `evolve` event by event: `doc` itself when no event changed it, and `changedBy` the positions
   * of the events that changed it. The runner then compares no documents.
   */
  evolveAll?(
    doc: D,
    events: readonly { event: DataEvent; position: number }[],
    related?: RelatedDocs<D>,
  ): EvolvedDoc<D>;
  /**
   * Optional: the documents the fold of document `id` reads but does not write (the COT buckets a
   * report is checked against). The runner loads them once per batch with the touched documents
   * and hands them to `evolveAll` as `related`.
   */
  related?(id: string): string[];
  /**
   * Projections whose changes are notified (series, cot): what an event changed, for the change
   * record the worker publishes on `CDS_CHANGES` when the event changed (or had changed) this
   * read model. Undefined for an event without dates. Absent: the projection records nothing.
   */
  changeOf?(event: DataEvent): EventChange | undefined;
}

/**
 * A related document as the fold sees it: as folded by this batch when the batch touched it before
 * (the runner folds documents in the order of the first event touching each), else as stored.
 */
export type RelatedDocs<D> = (id: string) => D | undefined;

/** What `evolveAll` made of a document: the next one and the positions of the events that changed it. */
export interface EvolvedDoc<D> {
  doc: D;
  changedBy: readonly number[];
}

/** The public request (relative to the API origin) of a commodity's series, COT or supply and demand answer with `query`. */
export function readPath(
  route: 'series' | 'cot' | 'supplyDemand',
  commodity: string,
  query: Record<string, string>,
): string {
  return `${ROUTE_PATHS[route].replace(':slug', commodity)}?${new URLSearchParams(query).toString()}`;
}

/** The earliest and latest of ISO dates (`YYYY-MM-DD` order as text), or undefined when there are none. */
export function dateRange(dates: Iterable<string>): { first: string; newest: string } | undefined {
  let first: string | undefined;
  let newest: string | undefined;
  for (const d of dates) {
    if (first === undefined || d < first) first = d;
    if (newest === undefined || d > newest) newest = d;
  }
  return first === undefined || newest === undefined ? undefined : { first, newest };
}

export function commodityOf(event: DataEvent): string {
  return event.type === 'catalog.commodity.upserted' ? event.data.id : event.data.commodity_id;
}

/** The next `_meta`: highest position seen, this projection's version, and the part positions. */
export function nextMeta(
  meta: ProjectionMeta,
  version: number,
  position: number,
  parts?: Record<string, number>,
): ProjectionMeta {
  return {
    position: Math.max(meta.position, position),
    version,
    ...(parts !== undefined ? { parts } : {}),
  };
}

/**
 * What a batch fold into one bucket remembers of the events that changed it (the runner's
 * `reflected`: change records after a crash): each changed date's latest event in the part
 * positions, the highest position, and the events in order.
 */
export function changeLog(meta: ProjectionMeta): {
  record(at: number, dates: Iterable<string>): void;
  readonly parts: Record<string, number> | undefined;
  readonly position: number;
  readonly changedBy: number[];
} {
  let parts: Record<string, number> | undefined;
  let position = meta.position;
  const changedBy: number[] = [];
  return {
    record(at, dates) {
      parts ??= { ...meta.parts };
      for (const d of dates) if ((parts[d] ?? 0) < at) parts[d] = at;
      if (position < at) position = at;
      changedBy.push(at);
    },
    get parts() {
      return parts;
    },
    get position() {
      return position;
    },
    changedBy,
  };
}

/** Sets a bucket's revised versions and releases when it has any (left out when empty). */
export function withVersions<D extends { revised?: unknown[]; releases?: unknown[] }>(
  doc: D,
  folded: { revised: NonNullable<D['revised']>; releases: NonNullable<D['releases']> },
): D {
  if (folded.revised.length > 0) doc.revised = folded.revised;
  if (folded.releases.length > 0) doc.releases = folded.releases;
  return doc;
}

/** Copies only the defined values (the driver would store `undefined` as null). */
export function defined<T extends Record<string, unknown>>(obj: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]: Exclude<T[K], undefined> };
}

/**
 * The provenance of an event's data: the batch's `source` (`eia:RWTC`, `cftc:legacy:067651`,
 * `demo`...), or for events published before batches carried one, `demo` when the envelope says
 * the demo generator made it. A COT report without either is attributed by its contract code (see
 * `cotReportSource`). Undefined when nothing says.
 */
export function sourceOf(event: DataEvent): string | undefined {
  if (event.type === 'catalog.commodity.upserted') return undefined;
  if (event.data.source !== undefined) return event.data.source;
  return event.source === 'demo' ? 'demo' : undefined;
}

/** The provenance of one COT report of an event: the event's, else the COT source's for its format and contract code. */
export function cotReportSource(
  event: DataEvent & { type: 'cot.reports.recorded' },
  report: { contract_code?: string | undefined },
): string | undefined {
  const source = sourceOf(event);
  if (source !== undefined) return source;
  return report.contract_code === undefined ? undefined : cotReportProvenance(event.data.format, report.contract_code);
}

/** The later of two RFC 3339 instants (either may be absent); compared as instants, not as text. */
export function laterInstant(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  if (ta !== tb) return ta > tb ? a : b;
  // the same instant written two ways: pick one by text, so the result does not depend on order
  return a >= b ? a : b;
}
