import { createHash } from 'node:crypto';
import { addDays } from '@cds/schedule';
import type { SourceItem } from '../sources/types.ts';
import type { SyncCursor } from './state.ts';

/** The identity of a record within its series: commodity, what it measures, (contract or balance sheet) and date. */
export function recordKey(item: Exclude<SourceItem, { kind: 'rejected' }>): { key: string; date: string } {
  if (item.kind === 'series') {
    return {
      key: `${item.commodity_id}|${item.series_type}|${item.frequency}|${item.point.date}`,
      date: item.point.date,
    };
  }
  if (item.kind === 'supply_demand') {
    // one balance sheet of one edition, dated the first day of the edition's month
    const b = item;
    const date = `${b.edition}-01`;
    return { key: `${b.commodity_id}|${b.region}|${b.marketing_year}|${b.edition}|${date}`, date };
  }
  const r = item.record;
  return { key: `${item.commodity_id}|${item.format}|${r.contract_code}|${r.report_date}`, date: r.report_date };
}

/**
 * The digest of a record's value. Its publication stamp is not part of it: a later release with
 * the same numbers is not a revision, and cursors stored before the stamps still match.
 */
function digest(item: Exclude<SourceItem, { kind: 'rejected' }>): string {
  let value: unknown;
  if (item.kind === 'series') value = [item.unit, item.point];
  else if (item.kind === 'supply_demand') {
    // the figures as published: not when, nor from which file (a re-post with the same figures is no revision)
    const figures = [...item.figures].sort((a, b) =>
      `${a.attribute}|${a.unit}`.localeCompare(`${b.attribute}|${b.unit}`),
    );
    value = [item.status, item.failed_checks ?? [], figures];
  } else {
    const { published_at: _at, published_at_estimated: _estimated, ...record } = item.record;
    value = record;
  }
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 16);
}

const dateOfKey = (key: string) => key.slice(key.lastIndexOf('|') + 1);

/**
 * Keeps the records the cursor has not seen, or has seen with another value (a revision), and
 * computes the cursor to store once they are published: the newest date, and the digests of the
 * records within the overlap window (older ones will not be asked again).
 */
export function filterAgainstCursor(
  items: readonly SourceItem[],
  cursor: SyncCursor | undefined,
  overlapDays: number,
  now: Date,
): { fresh: SourceItem[]; revised: number; unchanged: number; next: SyncCursor } {
  const seen = { ...(cursor?.seen ?? {}) };
  let newest = cursor?.newest_date;
  const fresh: SourceItem[] = [];
  let revised = 0;
  let unchanged = 0;
  for (const item of items) {
    if (item.kind === 'rejected') {
      fresh.push(item);
      continue;
    }
    const { key, date } = recordKey(item);
    const d = digest(item);
    const before = seen[key];
    if (before === d) {
      unchanged++;
      continue;
    }
    if (before !== undefined) revised++;
    seen[key] = d;
    fresh.push(item);
    if (newest === undefined || date > newest) newest = date;
  }
  const keepFrom = newest === undefined ? undefined : addDays(newest, -overlapDays);
  const pruned = Object.fromEntries(
    Object.entries(seen).filter(([k]) => keepFrom === undefined || dateOfKey(k) >= keepFrom),
  );
  return {
    fresh,
    revised,
    unchanged,
    next: { newest_date: newest ?? '', seen: pruned, updated_at: now.toISOString() },
  };
}
