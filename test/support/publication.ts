// Point in time (issue #25): every series point and COT report carries when it was published. The
// suites that compare values (with CSV, bulk files, expected numbers) compare them without these.

/** The publication fields of a point or report (docs/point-in-time.md). */
export const PUBLICATION_FIELDS = ['published_at', 'first_seen_at', 'published_at_estimated'] as const;

/** The item without its publication fields. */
export function withoutPublication<T extends object>(item: T): T {
  const out = { ...item } as Record<string, unknown>;
  for (const field of PUBLICATION_FIELDS) delete out[field];
  return out as T;
}
