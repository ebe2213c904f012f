import type { MongoBulkWriteError } from 'mongodb';
import { withDeadline, type DeadlineOptions } from '../deadline.ts';
import { DUPLICATE_KEY, writeErrorCodes } from '../errors.ts';
import type { StoreCall } from './port.ts';

/** Runs one database operation of a call under its deadline (see `withDeadline`), then reports progress. */
export type Run = <T>(what: string, op: (o: DeadlineOptions) => Promise<T>) => Promise<T>;

export function runner(defaultTimeoutMs: number, call: StoreCall = {}): Run {
  const deadline = {
    timeoutMs: call.timeoutMs ?? defaultTimeoutMs,
    ...(call.signal !== undefined ? { signal: call.signal } : {}),
  };
  return async (what, op) => {
    const res = await withDeadline(what, deadline, op);
    call.onAnswer?.();
    return res;
  };
}

/** The indexes of the statements of a bulk write refused only for a duplicate `_id`, else undefined. */
export function duplicateKeyIndexes(err: MongoBulkWriteError): Set<number> | undefined {
  const raw = err.writeErrors as { code: number; index: number } | { code: number; index: number }[];
  const errors = Array.isArray(raw) ? raw : [raw];
  if (!writeErrorCodes(err).every((code) => code === DUPLICATE_KEY)) return undefined;
  return new Set(errors.map((e) => e.index));
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
export const byId = (a: { _id: string }, b: { _id: string }) => byText(a._id, b._id);
export const byReportDate = (a: { report_date: string }, b: { report_date: string }) =>
  byText(a.report_date, b.report_date);

/** The years from `from` to `to`, inclusive (none when from > to). */
export function years(from: number, to: number): number[] {
  const out: number[] = [];
  for (let y = from; y <= to; y++) out.push(y);
  return out;
}

/** The fields of a catalog entry the list shows. */
export const CATALOG_SUMMARY = { id: 1, name: 1, symbol: 1, category: 1, exchange: 1, unit: 1, listed: 1 } as const;
