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
 */
const rendered = [new WeakMap<ViewedPoint, TimeSeriesPoint>(), new WeakMap<ViewedPoint, TimeSeriesPoint>()] as const;
/** Kept rendered points: their JSON text, or null until first serialized. */
const texts = new WeakMap<object, string | null>();

/** The point's rendered object, made by `render` the first time for this kind of series. */
export function keptRender(
  p: ViewedPoint,
  withPriceFields: boolean,
  render: (p: ViewedPoint, withPriceFields: boolean) => TimeSeriesPoint,
): TimeSeriesPoint {
  const byKind = rendered[withPriceFields ? 1 : 0];
  let out = byKind.get(p);
  if (out === undefined) {
    out = render(p, withPriceFields);
    byKind.set(p, out);
    texts.set(out, null);
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
