// The soak (issue 7, item 4): a steady open-loop rate through one gateway -> query -> FerretDB for
// SOAK_SECONDS, sampling each process's resident memory, which must stay flat. It asserts no
// timing, so `npm test` runs it beside the other e2e files (the `soak` project) rather than after
// them: its 40 requests a second cost a few percent of a core. A one-minute burst (SOAK_BURST_SECONDS)
// first brings the heaps to their working size.
//
//   SOAK_SECONDS=300       soak length (CI runs the default); SOAK_RPS=40 its steady rate
//   SOAK_WARMUP_SECONDS    first part of the soak before the start sample (default min(30, 20%))
//   SOAK_MAX_GROWTH_MB / SOAK_MAX_GROWTH_RATIO   growth allowed from the start sample to the end
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { E2E } from './support/harness.ts';
import { startLoad, type LoadReport } from './support/load.ts';
import { ENDPOINTS, memorySample, percentile, row, startReadLoadSystem } from './support/read-load.ts';

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const SOAK_RPS = Number(process.env.SOAK_RPS ?? 40);
const SOAK_WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? Math.min(30, SOAK_SECONDS * 0.2));
/** Growth allowed between the soak's start and end samples: the larger of these. */
const SOAK_MAX_GROWTH_MB = Number(process.env.SOAK_MAX_GROWTH_MB ?? 60);
const SOAK_MAX_GROWTH_RATIO = Number(process.env.SOAK_MAX_GROWTH_RATIO ?? 0.3);
/** Enterprise keys the requests rotate over: each stays below its 1,000 requests a minute. */
const ACCOUNTS = 8;
/** The burst before the soak: 100 requests/s over the 8 keys (750 a minute each) for a minute. */
const WARM_UP_RPS = 100;
const WARM_UP_BURST_SECONDS = Number(process.env.SOAK_BURST_SECONDS ?? 60);

let e2e: E2E;
let keys: string[] = [];

beforeAll(async () => {
  ({ e2e, keys } = await startReadLoadSystem(ACCOUNTS));
}, 300_000);

afterAll(async () => {
  await e2e?.stop();
}, 60_000);

describe('soak', () => {
  it(
    `keeps every process's memory flat over a ${SOAK_SECONDS} s soak at ${SOAK_RPS} requests/s`,
    async () => {
      const paths = Object.values(ENDPOINTS);
      // The heaps first grow to their working size under a burst (as when the load test ran before
      // the soak): measured from a cold start, V8's growth to it over the first minutes reads as a leak.
      const burst = await startLoad({
        urls: [e2e.gatewayUrl()],
        keys,
        paths,
        ratePerSec: WARM_UP_RPS,
        durationMs: WARM_UP_BURST_SECONDS * 1000,
      }).done;
      expect(burst.failures + burst.contractViolations.length).toBe(0);
      const initial = memorySample(e2e);
      const load = startLoad({
        urls: [e2e.gatewayUrl()],
        keys,
        paths,
        ratePerSec: SOAK_RPS,
        durationMs: SOAK_SECONDS * 1000,
      });
      const samples: { at: number; mem: Record<string, number> }[] = [];
      let warm: Record<string, number> | undefined;
      const every = Math.max(10, SOAK_SECONDS / 10) * 1000;
      let nextSample = SOAK_WARMUP_SECONDS * 1000;
      const start = performance.now();
      let report: LoadReport | undefined;
      void load.done.then((r) => (report = r));
      while (report === undefined) {
        if (performance.now() - start >= nextSample) {
          const mem = memorySample(e2e);
          warm ??= mem;
          samples.push({ at: (performance.now() - start) / 1000, mem });
          nextSample += every;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const final = memorySample(e2e);
      samples.push({ at: (performance.now() - start) / 1000, mem: final });
      const startMem = warm ?? initial;

      const answered = report.samples.filter((s) => s.status !== 0);
      const sorted = answered.map((s) => s.ms).sort((a, b) => a - b);
      const count = (test: (status: number) => boolean) =>
        Object.entries(report!.byStatus).reduce((n, [s, c]) => n + (test(Number(s)) ? c : 0), 0);
      const ok = count((s) => s >= 200 && s < 300);
      const limited = count((s) => s === 429);
      const clientErrors = count((s) => s >= 400 && s < 500 && s !== 429);
      const serverErrors = count((s) => s >= 500);
      const names = Object.keys(final);
      const widths = [16, 10, 18, 8, 10];
      const lines = [
        row(
          ['process', 'before MB', `start MB (t=${SOAK_WARMUP_SECONDS.toFixed(0)} s)`, 'end MB', 'growth MB'],
          widths,
        ),
        ...names.map((n) =>
          row(
            [
              n,
              initial[n]!.toFixed(1),
              startMem[n]!.toFixed(1),
              final[n]!.toFixed(1),
              (final[n]! - startMem[n]!).toFixed(1),
            ],
            widths,
          ),
        ),
      ];
      const trace = names
        .filter((n) => !n.startsWith('('))
        .map((n) => `${n.padEnd(16)} ${samples.map((s) => s.mem[n]!.toFixed(0)).join(' ')}`);
      console.log(
        `\nsoak: ${SOAK_SECONDS} s at ${SOAK_RPS} req/s over ${paths.length} endpoints: ${answered.length} answered ` +
          `(${ok} 2xx, ${clientErrors} 4xx, ${limited} 429, ${serverErrors} 5xx, ${report.failures} network errors or timeouts, ` +
          `${report.skipped} not sent for 64 pending), ` +
          `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms\n${lines.join('\n')}\n` +
          `RSS MB at t = ${samples.map((s) => s.at.toFixed(0)).join(', ')} s\n${trace.join('\n')}\n`,
      );

      expect(serverErrors).toBe(0);
      expect(report.failures).toBe(0);
      expect(report.skipped).toBe(0);
      expect(report.contractViolations).toEqual([]);
      // Only the two error endpoints answer 4xx, and no key reaches its limit.
      expect(limited).toBe(0);
      expect(clientErrors).toBe(report.sent - ok);
      expect(answered.length).toBeGreaterThanOrEqual(Math.floor(SOAK_SECONDS * SOAK_RPS * 0.9));
      for (const svc of e2e.system.all()) {
        expect(svc.exited(), `${svc.name} still running`).toBe(false);
        const growth = final[svc.name]! - startMem[svc.name]!;
        const bound = Math.max(SOAK_MAX_GROWTH_MB, startMem[svc.name]! * SOAK_MAX_GROWTH_RATIO);
        expect(
          growth,
          `${svc.name}: RSS ${startMem[svc.name]!.toFixed(1)} -> ${final[svc.name]!.toFixed(1)} MB`,
        ).toBeLessThan(bound);
      }
    },
    (SOAK_SECONDS + WARM_UP_BURST_SECONDS) * 1000 + 120_000,
  );
});
