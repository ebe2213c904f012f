/**
 * Test support: the cost of a parser on an input ten times longer than another, as a ratio of the
 * process's CPU time (never a wall-clock threshold). A linear parser gives about 10, a quadratic one
 * about 100: specs assert a bound with a generous margin (for example < 30).
 */

/** CPU microseconds `reps` runs of `run(input)` take, the least of `trials` batches (the least disturbed). */
function leastCpu(run: (input: string) => unknown, input: string, reps: number, trials: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let t = 0; t < trials; t++) {
    const start = process.cpuUsage();
    for (let i = 0; i < reps; i++) run(input);
    const used = process.cpuUsage(start);
    best = Math.min(best, used.user + used.system);
  }
  return best;
}

/**
 * The CPU time `run` takes on `long` over the time it takes on `short` (inputs whose lengths differ
 * tenfold), each the least of several batches sized so the short one takes at least 2 ms (timer
 * resolution does not count). CPU time, unlike wall time, does not grow while the process waits for
 * a core; what other load still adds (caches, a collection landing in one batch) only ever raises a
 * ratio, so a ratio over `retryAbove` is measured again, up to `attempts` times, and the least is
 * returned: a quadratic parser stays near 100 however often it is measured.
 */
export function costRatio(
  run: (input: string) => unknown,
  short: string,
  long: string,
  opts: { trials?: number; attempts?: number; retryAbove?: number } = {},
): number {
  const trials = opts.trials ?? 7;
  const attempts = opts.attempts ?? 3;
  const retryAbove = opts.retryAbove ?? 20;
  let reps = 1;
  while (leastCpu(run, short, reps, 1) < 2_000 && reps < 1 << 20) reps *= 2;
  leastCpu(run, long, 1, 2); // warm up the long input's paths too
  let best = Number.POSITIVE_INFINITY;
  for (let a = 0; a < attempts && best > retryAbove; a++) {
    best = Math.min(best, leastCpu(run, long, reps, trials) / Math.max(1, leastCpu(run, short, reps, trials)));
  }
  return best;
}
