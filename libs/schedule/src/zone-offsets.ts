/**
 * A time zone's offset from UTC at any instant, from the tz database through Intl, asked about
 * 40 times per zone and year and then read from a table: a year's calendar of a daily rule is
 * hundreds of instants, and Intl's formatting costs tens of microseconds each.
 *
 * The table of a year holds the offset at its start and every change in it, found by probing the
 * first instant of each month and, where two months' differ, bisecting to the minute (zones change
 * offset at most once a month: twice a year for daylight saving time).
 */
const MINUTE = 60_000;

const partsFormats = new Map<string, Intl.DateTimeFormat>();
function partsFormat(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormats.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    partsFormats.set(timeZone, f);
  }
  return f;
}

/** The offset (local wall clock minus UTC, in ms, whole minutes) at `ms`, asked of Intl. */
export function intlOffset(ms: number, timeZone: string): number {
  const p: Record<string, number> = {};
  for (const x of partsFormat(timeZone).formatToParts(ms)) if (x.type !== 'literal') p[x.type] = Number(x.value);
  const { year = Number.NaN, month = 1, day = 1, hour = 0, minute = 0 } = p;
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  return wall - Math.floor(ms / MINUTE) * MINUTE;
}

interface YearTable {
  /** The instants the offsets start at, ascending; the first is the year's start (UTC). */
  starts: number[];
  offsets: number[];
}

function buildYear(timeZone: string, year: number): YearTable {
  const starts = [Date.UTC(year, 0, 1)];
  const offsets = [intlOffset(starts[0]!, timeZone)];
  for (let m = 1; m <= 12; m++) {
    let lo = Date.UTC(year, m - 1, 1);
    let hi = Date.UTC(year, m, 1);
    const before = offsets.at(-1)!;
    const after = intlOffset(hi, timeZone);
    if (after === before) continue;
    while (hi - lo > MINUTE) {
      const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
      if (intlOffset(mid, timeZone) === before) lo = mid;
      else hi = mid;
    }
    if (m === 12 && hi === Date.UTC(year + 1, 0, 1)) break;
    starts.push(hi);
    offsets.push(after);
  }
  return { starts, offsets };
}

/** Years the tables cover; an instant outside asks Intl directly. */
const FIRST_TABLED = 1900;
const LAST_TABLED = 2200;
const tables = new Map<string, YearTable>();

/** A stretch of one offset: the last one each zone was read in, as calendars read instants in order. */
interface Stretch {
  from: number;
  to: number;
  offset: number;
}
const lastStretch = new Map<string, Stretch>();

/** The offset of `timeZone` from UTC at `ms` (local wall clock minus UTC, in ms). Throws a RangeError for an invalid instant or zone. */
export function zoneOffset(ms: number, timeZone: string): number {
  if (!Number.isFinite(ms)) throw new RangeError('Invalid time value');
  const last = lastStretch.get(timeZone);
  if (last !== undefined && ms >= last.from && ms < last.to) return last.offset;
  const year = new Date(ms).getUTCFullYear();
  if (year < FIRST_TABLED || year > LAST_TABLED) return intlOffset(ms, timeZone);
  const key = `${timeZone} ${year}`;
  let table = tables.get(key);
  if (table === undefined) {
    table = buildYear(timeZone, year);
    tables.set(key, table);
  }
  let i = table.starts.length - 1;
  while (i > 0 && table.starts[i]! > ms) i--;
  const offset = table.offsets[i]!;
  lastStretch.set(timeZone, { from: table.starts[i]!, to: table.starts[i + 1] ?? Date.UTC(year + 1, 0, 1), offset });
  return offset;
}

/** The wall clock of `ms` in `timeZone` read as a UTC instant, to the minute. */
export function wallClockMs(ms: number, timeZone: string): number {
  return Math.floor(ms / MINUTE) * MINUTE + zoneOffset(ms, timeZone);
}
