/**
 * Test support: the cost of a parser on an input ten times longer than another, as a ratio of CPU
 * time (never a wall-clock threshold). A linear parser gives about 10, a quadratic one about 100:
 * specs assert a bound with a generous margin (for example < 30).
 */

/** Nanoseconds `reps` runs of `run(input)` take, the least of `trials` tries (the least disturbed by other load). */
function leastTime(run: (input: string) => unknown, input: string, reps: number, trials: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let t = 0; t < trials; t++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) run(input);
    best = Math.min(best, Number(process.hrtime.bigint() - t0));
  }
  return best;
}

/**
 * The time `run` takes on `long` over the time it takes on `short` (inputs whose lengths differ
 * tenfold), each the least of several batches; batches are sized so the short one takes at least
 * 2 ms, so timer resolution does not count.
 */
export function costRatio(run: (input: string) => unknown, short: string, long: string, trials = 7): number {
  let reps = 1;
  while (leastTime(run, short, reps, 1) < 2e6 && reps < 1 << 20) reps *= 2;
  leastTime(run, long, 1, 2); // warm up the long input's paths too
  return leastTime(run, long, reps, trials) / leastTime(run, short, reps, trials);
}
