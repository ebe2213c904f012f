/**
 * A small reader of five-field cron expressions (minute hour day-of-month month day-of-week: `*`,
 * numbers, ranges, lists, steps), with the Kubernetes/cron rule that when both day-of-month and
 * day-of-week are restricted a day matches if either does. Used to check that the CronJobs cover
 * every computed release; it does not run anything.
 */
function field(spec: string, min: number, max: number): Set<number> | undefined {
  if (spec === '*') return undefined;
  const out = new Set<number>();
  for (const part of spec.split(',')) {
    const m = /^(\*|\d+(?:-\d+)?)(?:\/(\d+))?$/.exec(part);
    if (!m) throw new Error(`bad cron field "${spec}"`);
    const [lo, hi] = m[1] === '*' ? [min, max] : (m[1]!.split('-').map(Number) as [number, number?]);
    const step = m[2] === undefined ? 1 : Number(m[2]);
    const end = hi ?? (m[2] === undefined ? lo : max);
    if (lo < min || end > max || lo > end || step < 1) throw new Error(`cron field "${spec}" out of range`);
    for (let v = lo; v <= end; v += step) out.add(v === 7 && max === 7 ? 0 : v);
  }
  return out;
}

export interface CronSpec {
  matches(local: { date: string; time: string; dow: number }): boolean;
}

export function parseCron(expr: string): CronSpec {
  const parts = expr.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`cron "${expr}" needs 5 fields`);
  const [mi, h, dom, mon, dow] = [
    field(parts[0]!, 0, 59),
    field(parts[1]!, 0, 23),
    field(parts[2]!, 1, 31),
    field(parts[3]!, 1, 12),
    field(parts[4]!, 0, 7),
  ];
  return {
    matches({ date, time, dow: d }) {
      const [hh, mm] = time.split(':').map(Number) as [number, number];
      const day = Number(date.slice(8, 10));
      const month = Number(date.slice(5, 7));
      if (mi && !mi.has(mm)) return false;
      if (h && !h.has(hh)) return false;
      if (mon && !mon.has(month)) return false;
      if (dom && dow) return dom.has(day) || dow.has(d);
      if (dom && !dom.has(day)) return false;
      if (dow && !dow.has(d)) return false;
      return true;
    },
  };
}
