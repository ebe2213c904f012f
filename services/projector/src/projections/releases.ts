import type { DataEvent } from '@cds/contracts';
import { normalizeInstant, type ReleaseStamp } from '@cds/read-models';

/** What an event says of the publication of its items (a series batch, or one COT report). */
export interface StatedPublication {
  published_at?: string | undefined;
  published_at_estimated?: boolean | undefined;
}

/** When an event's items were first seen: its `occurred_at`, as every stored instant is written (`toISOString`). */
export function firstSeenOf(event: DataEvent): string {
  return normalizeInstant(event.occurred_at) ?? event.occurred_at;
}

/**
 * The release stamp of items (docs/point-in-time.md): their stated `published_at` when there is
 * one, else `fallback()` (a release calendar, or the ingest time), estimated.
 */
export function stampOf(stated: StatedPublication, fallback: () => string, firstSeenAt: string): ReleaseStamp {
  const published = stated.published_at === undefined ? undefined : normalizeInstant(stated.published_at);
  if (published !== undefined) {
    return { publishedAt: published, firstSeenAt, estimated: stated.published_at_estimated === true };
  }
  const estimate = fallback();
  return { publishedAt: normalizeInstant(estimate) ?? estimate, firstSeenAt, estimated: true };
}

/** The earlier of two instants as `toISOString()` text (either may be absent): text order is time order. */
export function earlierInstant(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a <= b ? a : b;
}
