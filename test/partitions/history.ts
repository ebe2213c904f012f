// What one partition run recorded (the checker's input, checker.ts) and its per-second timeline
// (the figure's, svg.ts). Times are milliseconds since the run's start unless named `epoch`.

/** One API request of the load. */
export interface RequestRecord {
  at: number;
  ms: number;
  /** HTTP status, 0 for a network error or a timeout. */
  status: number;
  /** Index of the gateway it went to. */
  gateway: number;
  /** Which traffic: the steady load, or the rate-limited account's. */
  kind: 'load' | 'limited';
  /** The UTC minute it was sent in (the rate window it counted in). */
  minute: number;
}

/** One look at a gateway with the revoked key (If-None-Match: *, which no window counts). */
export interface KeyProbe {
  at: number;
  gateway: number;
  /** 304 known, 401 refused, 0 no answer. */
  status: number;
}

export interface Bounds {
  /** After the heal, every gateway refuses a key revoked during the partition within this. */
  revocationAfterHealMs: number;
  /** A gateway on the admin API's side of the cut refuses it within this of the revoke's answer. */
  revocationMs: number;
  /** After the heal, 503 (and unanswered requests) may go on this long; never any other 5xx. */
  settleMs: number;
  /** Requests admitted for one account in one minute, at most this many times its limit. */
  rateFactor: number;
}

export interface History {
  scenario: string;
  title: string;
  /** What was cut from what. */
  cut: string;
  startedEpoch: number;
  gateways: string[];
  /** The gateways on the far side of the cut from the admin API (their revocation waits for the heal). */
  cutOffGateways: number[];
  bounds: Bounds;
  partition: { from: number; to: number };
  requests: RequestRecord[];
  /** Messages the projections had not applied yet (the most of any projection), null when not known. */
  lag: { at: number; pending: number | null }[];
  revocation: { answeredAt: number | null; probes: KeyProbe[] };
  limited: { perMinute: number };
  ingest: { runs: { code: number | null; published: number; duplicates: number }[]; added: number; distinct: number };
  readModels: {
    live: string;
    reference: string;
    points: number;
    reports: number;
    /** Each read model's documents and hash, live / rebuilt, where they differ. */
    differences: string[];
  };
  /** Free text notes of the run (leader changes, failovers), shown with the verdicts. */
  notes: string[];
}

export interface Second {
  second: number;
  admitted: number;
  limited429: number;
  unavailable: number;
  /** Any other non-2xx/429/503 answer, or no answer. */
  errors: number;
  lag: number | null;
}

/** The run per second, from its first request to the last sample. */
export function timeline(h: History): Second[] {
  const end = Math.max(h.partition.to, ...h.requests.map((r) => r.at), ...h.lag.map((l) => l.at));
  const seconds: Second[] = Array.from({ length: Math.floor(end / 1000) + 1 }, (_, second) => ({
    second,
    admitted: 0,
    limited429: 0,
    unavailable: 0,
    errors: 0,
    lag: null,
  }));
  for (const r of h.requests) {
    const s = seconds[Math.floor(r.at / 1000)]!;
    if (r.status >= 200 && r.status < 300) s.admitted += 1;
    else if (r.status === 429) s.limited429 += 1;
    else if (r.status === 503) s.unavailable += 1;
    else s.errors += 1;
  }
  for (const l of h.lag) {
    const s = seconds[Math.floor(l.at / 1000)]!;
    if (l.pending !== null) s.lag = Math.max(s.lag ?? 0, l.pending);
  }
  return seconds;
}
