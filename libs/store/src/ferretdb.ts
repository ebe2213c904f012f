import type { Db } from 'mongodb';
import { withDeadline, type DeadlineOptions } from './deadline.ts';

/** Runs one database operation under a deadline (a bound `withDeadline`, or a read model's `Run`). */
export type DeadlineRun = <T>(what: string, op: (o: DeadlineOptions) => Promise<T>) => Promise<T>;

const withinTwentySeconds: DeadlineRun = (what, op) => withDeadline(what, { timeoutMs: 20_000 }, op);

/**
 * True when the server is FerretDB (its buildInfo carries `ferretdbVersion`): how the read-model
 * store and the webhook store choose their adapter.
 */
export async function isFerretDB(db: Db, run: DeadlineRun = withinTwentySeconds): Promise<boolean> {
  const info = await run('buildInfo', ({ signal }) => db.admin().command({ buildInfo: 1 }, { signal }));
  return typeof info.ferretdbVersion === 'string';
}
