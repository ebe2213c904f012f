import { addDays } from '@cds/schedule';

/**
 * How far back each sync asks (docs/sources.md "Sync"): from the newest date stored minus an
 * overlap that catches revisions, or, on the first run of a series, an initial lookback; each
 * source's sync task holds its own overlap and lookback. First date to ask for: `since` when given,
 * else newest - overlap, else today - lookback.
 */
export function syncFrom(args: {
  newest: string | undefined;
  overlapDays: number;
  lookbackDays: number;
  today: string;
  since?: string | undefined;
}): string {
  if (args.since !== undefined) return args.since;
  if (args.newest !== undefined) return addDays(args.newest, -args.overlapDays);
  return addDays(args.today, -args.lookbackDays);
}
