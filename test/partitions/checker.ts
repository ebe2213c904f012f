// The verdicts over a partition run's history (history.ts): what the suite proves after each heal
// (docs/reliability.md "Partitions"). Pure: the same history always gives the same verdicts.
import type { History } from './history.ts';

export interface Verdict {
  check: string;
  ok: boolean;
  detail: string;
}

/** Every acknowledged ingest event is stored once and in the read models, which equal a clean rebuild. */
function events(h: History): Verdict[] {
  // A run that gave up (exit 1, its summary unprinted) was run again after the heal with the same
  // events: what it had stored counts among the rerun's duplicates, so the bounds take the runs that ended 0.
  const done = h.ingest.runs.filter((r) => r.code === 0);
  const published = done.reduce((n, r) => n + r.published, 0);
  const duplicates = done.reduce((n, r) => n + r.duplicates, 0);
  return [
    {
      check: 'every ingest run acknowledged all its events (the last one after a rerun)',
      ok: h.ingest.runs.length > 0 && h.ingest.runs.at(-1)!.code === 0,
      detail: `${h.ingest.runs.length} runs, exits ${h.ingest.runs.map((r) => r.code).join(', ')}; ${published} published, ${duplicates} duplicates`,
    },
    {
      check: 'every acknowledged event stored, none twice',
      ok:
        h.ingest.distinct === h.ingest.added && h.ingest.added >= published && h.ingest.added <= published + duplicates,
      detail: `${h.ingest.added} new messages (${h.ingest.distinct} distinct ids) for ${published} published + ${duplicates} duplicates`,
    },
    {
      check: 'read models hash-identical to a clean rebuild of the stream',
      ok: h.readModels.live === h.readModels.reference && h.readModels.live !== '',
      detail: `live ${h.readModels.live.slice(0, 12)}, rebuild ${h.readModels.reference.slice(0, 12)} (${h.readModels.points} points, ${h.readModels.reports} reports)${h.readModels.differences.length > 0 ? `; differ: ${h.readModels.differences.join(', ')}` : ''}`,
    },
  ];
}

/** The revoked key: refused by every gateway in time, and never known again after its first refusal. */
function revocation(h: History): Verdict[] {
  const answered = h.revocation.answeredAt;
  if (answered === null) {
    return [{ check: 'the revocation was answered', ok: false, detail: 'the admin API never answered 200' }];
  }
  const out: Verdict[] = [];
  const firsts: string[] = [];
  let late = false;
  let known = false;
  h.gateways.forEach((name, g) => {
    const probes = h.revocation.probes.filter((p) => p.gateway === g && p.at >= answered).sort((a, b) => a.at - b.at);
    const first = probes.find((p) => p.status === 401);
    const cutOff = h.cutOffGateways.includes(g);
    const deadline = cutOff
      ? Math.max(h.partition.to, answered) + h.bounds.revocationAfterHealMs
      : answered + h.bounds.revocationMs;
    if (first === undefined || first.at > deadline) late = true;
    if (first !== undefined && probes.some((p) => p.at > first.at && p.status !== 401 && p.status !== 0)) known = true;
    firsts.push(
      `${name}${cutOff ? ' (cut off)' : ''} ${first === undefined ? 'never' : `${first.at - answered} ms after the answer`}`,
    );
  });
  out.push({
    check: 'the revoked key refused by every gateway within the bound',
    ok: !late,
    detail: `${firsts.join('; ')} (bounds: ${h.bounds.revocationMs} ms, cut off ${h.bounds.revocationAfterHealMs} ms after the heal)`,
  });
  out.push({
    check: 'no gateway knew the key again after refusing it',
    ok: !known,
    detail: known ? 'a 304 after a 401' : 'none',
  });
  return out;
}

/** The limited account's admissions per UTC minute stay within the stated factor of its limit. */
function rate(h: History): Verdict {
  const perMinute = new Map<number, number>();
  for (const r of h.requests) {
    if (r.kind === 'limited' && r.status === 200) perMinute.set(r.minute, (perMinute.get(r.minute) ?? 0) + 1);
  }
  const bound = h.bounds.rateFactor * h.limited.perMinute;
  const worst = Math.max(0, ...perMinute.values());
  return {
    check: 'rate windows admitted no more than the bound',
    ok: worst <= bound,
    detail: `admitted per minute ${[...perMinute.values()].join(', ') || 'none'} (limit ${h.limited.perMinute}, bound ${bound})`,
  };
}

/** No 5xx but 503, and 503 or no answer only between the cut and the heal plus the settle time. */
function errors(h: History): Verdict[] {
  const until = h.partition.to + h.bounds.settleMs;
  const bad = h.requests.filter((r) => r.status >= 500 && r.status !== 503);
  const outside = h.requests.filter(
    (r) => (r.status === 503 || r.status === 0) && (r.at < h.partition.from || r.at > until),
  );
  const inside = h.requests.filter((r) => r.status === 503 || r.status === 0).length - outside.length;
  return [
    { check: 'no 5xx but 503', ok: bad.length === 0, detail: `${bad.length} (${bad.map((r) => r.status).join(', ')})` },
    {
      check: '503 and unanswered requests only while partitioned and settling',
      ok: outside.length === 0 && h.requests.length > 0,
      detail: `${inside} inside [cut, heal + ${h.bounds.settleMs} ms], ${outside.length} outside (at ${outside
        .slice(0, 5)
        .map((r) => `${r.at} ms`)
        .join(', ')})`,
    },
  ];
}

export function check(h: History): Verdict[] {
  return [...events(h), ...revocation(h), rate(h), ...errors(h)];
}

/** The verdicts as lines, `ok` or `FAILED` first. */
export function describeVerdicts(verdicts: readonly Verdict[]): string {
  return verdicts.map((v) => `${v.ok ? 'ok    ' : 'FAILED'} ${v.check}: ${v.detail}`).join('\n');
}
