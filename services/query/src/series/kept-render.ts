import { createHash } from 'node:crypto';
import type { TimeSeriesPoint } from '@cds/contracts';
import type { ViewedPoint } from '@cds/store';

/**
 * The rendered form of points the read memo keeps (repository/read-memo.ts: the current view of a
 * series year, the same objects for every request until the data changes): each point's answer
 * object is made once per kind of series (with or without the price fields), and its JSON text once,
 * when first serialized; both go with the point when the memo drops it (weak maps). A response
 * cache miss over kept years then joins texts instead of rendering and stringifying every point
 * (JSON.stringify was a third of a cold series read's CPU). The objects are shared: nothing changes
 * them after they are made (the answer's array is reordered and sliced, never its items).
 *
 * A kept year (keepYear) goes further: its points' texts are written once into one buffer, with a
 * digest of it, so an answer made of runs of consecutive kept points is written from slices of
 * those buffers (keptDataBytes) and its ETag made from their digests, not from hashing its bytes.
 */
const rendered = [new WeakMap<ViewedPoint, TimeSeriesPoint>(), new WeakMap<ViewedPoint, TimeSeriesPoint>()] as const;
/** Kept rendered points: their JSON text, or null until first serialized. */
const texts = new WeakMap<object, string | null>();

type Render = (p: ViewedPoint, withPriceFields: boolean) => TimeSeriesPoint;

/** One kept year's points' texts in one buffer, each followed by a comma. */
interface YearBytes {
  /** The year's rendered points of this kind, in order. */
  readonly rendered: readonly TimeSeriesPoint[];
  readonly bytes: Buffer;
  /** Where each point's text starts; one more entry: the end of the buffer. */
  readonly offsets: Uint32Array;
  /** SHA-256 (base64url) of `bytes`. */
  readonly digest: string;
}

/** The points of one kept year, in date order, and their bytes per kind of series (made on first use). */
interface KeptYear {
  readonly points: readonly ViewedPoint[];
  readonly bytes: [YearBytes | undefined, YearBytes | undefined];
  /** How the points of each kind are rendered: compute.ts's one function, given with the first point. */
  readonly renders: [Render | undefined, Render | undefined];
}

/** A kept point's year and its place in it. */
interface Place {
  readonly year: KeptYear;
  readonly index: number;
}

const pointPlaces = new WeakMap<ViewedPoint, Place>();
/** A kept rendered point's year, place and kind (0: without price fields, 1: with). */
const renderedPlaces = new WeakMap<object, Place & { readonly kind: 0 | 1 }>();

/**
 * Marks the points of one year as the read memo keeps them (ascending dates, never changed while
 * kept): answers taking consecutive ones are written from one buffer of the year.
 */
export function keepYear(points: readonly ViewedPoint[]): void {
  const year: KeptYear = { points, bytes: [undefined, undefined], renders: [undefined, undefined] };
  for (let index = 0; index < points.length; index += 1) pointPlaces.set(points[index]!, { year, index });
}

/** The point's rendered object, made by `render` the first time for this kind of series. */
export function keptRender(p: ViewedPoint, withPriceFields: boolean, render: Render): TimeSeriesPoint {
  const kind = withPriceFields ? 1 : 0;
  const byKind = rendered[kind];
  let out = byKind.get(p);
  if (out === undefined) {
    out = render(p, withPriceFields);
    byKind.set(p, out);
    texts.set(out, null);
    const place = pointPlaces.get(p);
    if (place !== undefined) {
      place.year.renders[kind] ??= render;
      renderedPlaces.set(out, { year: place.year, index: place.index, kind });
    }
  }
  return out;
}

/** Whether an answer item is a kept rendered point (its JSON text is kept). */
export function isKeptRender(item: unknown): boolean {
  return typeof item === 'object' && item !== null && texts.has(item);
}

/** JSON.stringify's text of an item, kept when the item is a kept rendered point. */
export function itemJson(item: unknown): string {
  if (typeof item !== 'object' || item === null) return JSON.stringify(item);
  const text = texts.get(item);
  if (text === undefined) return JSON.stringify(item);
  if (text !== null) return text;
  const made = JSON.stringify(item);
  texts.set(item, made);
  return made;
}

function yearBytes(year: KeptYear, kind: 0 | 1): YearBytes {
  const made = year.bytes[kind];
  if (made !== undefined) return made;
  const render = year.renders[kind]!;
  const parts: Buffer[] = [];
  const offsets = new Uint32Array(year.points.length + 1);
  const points = year.points.map((p) => keptRender(p, kind === 1, render));
  let at = 0;
  for (let i = 0; i < points.length; i += 1) {
    const part = Buffer.from(`${itemJson(points[i])},`);
    offsets[i] = at;
    at += part.length;
    parts.push(part);
  }
  offsets[year.points.length] = at;
  const bytes = copyOf(Buffer.concat(parts, at));
  const digest = createHash('sha256').update(bytes).digest('base64url');
  const out: YearBytes = { rendered: points, bytes, offsets, digest };
  year.bytes[kind] = out;
  return out;
}

/** The JSON bytes of a `data` array of kept points, and what identifies them. */
export interface KeptDataBytes {
  /** The items' texts, comma-separated (without the brackets), in slices of the years' buffers (short ones copied). */
  readonly pieces: Buffer[];
  /**
   * Names the bytes: each run of consecutive points of one year as its year's digest, its first
   * index and its length. Equal runs give equal bytes, and bytes that differ come from runs that do.
   */
  readonly runs: string;
}

const COMMA = Buffer.from(',');

/** The bytes in memory of their own (not a slice of Buffer's shared pool, which a kept copy would pin). */
function copyOf(bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(out);
  return out;
}

/** Most runs an answer is written in from kept years (a 30-year window in date order is 31). */
const MAX_RUNS = 32;

/**
 * The bytes of `data` from the kept years' buffers, when every item is a kept rendered point of a
 * kept year and they make at most MAX_RUNS runs; undefined otherwise (then the caller joins texts).
 * Items in date order make one run per year; in any other order, one run each.
 */
export function keptDataBytes(data: readonly unknown[]): KeptDataBytes | undefined {
  const pieces: Buffer[] = [];
  let runs = '';
  let i = 0;
  for (let count = 0; i < data.length; count += 1) {
    const first = renderedPlaces.get(data[i] as object);
    // Too many runs (points newest first: one each) cost more than joining texts.
    if (first === undefined || count === MAX_RUNS) return undefined;
    const year = yearBytes(first.year, first.kind);
    // the run goes on while the items are the year's next rendered points (the same objects)
    let j = i + 1;
    while (j < data.length && data[j] === year.rendered[first.index + (j - i)]) j += 1;
    if (i > 0) pieces.push(COMMA);
    // without the comma after the run's last point
    const run = year.bytes.subarray(year.offsets[first.index], year.offsets[first.index + (j - i)]! - 1);
    // A run shorter than half its year is copied: an answer kept by the response cache then holds
    // at most twice the bytes it is counted for, not a year for a day.
    pieces.push(run.length * 2 < year.bytes.length ? copyOf(run) : run);
    runs += `${year.digest}${first.index},${j - i};`;
    i = j;
  }
  return { pieces, runs };
}
