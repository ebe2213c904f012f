import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeUnits, longUnits, productionFiles } from './unit-size.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** No production function, closure or class of this many lines or more, but the ones below. */
const MAX_LINES = 140;

/**
 * The units allowed to stay that long (at most five), `file:name`, each with its reason. The
 * dashboard's explorer client (explorer.js) is JavaScript and not counted.
 */
const ALLOWED = new Map([
  [
    'services/gateway/src/events/hub.ts:EventHub',
    'a class of small methods over one state (open streams, ring, slots): cut by responsibility already',
  ],
  [
    'services/gateway/src/keys/key-table.ts:KeyTable',
    'a compact table of typed-array chunks and an open-addressing index: its methods share private layout',
  ],
  [
    'clients/typescript/src/client.ts:Client',
    'the public client: one short method per endpoint, and the private call, retry and deadline steps they share',
  ],
  [
    'libs/messaging/src/consume/watchdog.ts:StallWatchdog',
    'one state machine (progress, stall, recovery) in small methods, with its own unit spec',
  ],
  [
    'services/ingest/src/sources/common/http.ts:createHttpClient',
    'one request loop (pacing, timeout, backoff, same-origin redirects, bounded bodies) whose steps share its state; next to lift',
  ],
]);

describe('unit size', () => {
  it('counts the outermost functions, closures and classes, nested helpers inside their unit', () => {
    const text = [
      'export function outer() {', // 1
      '  const inner = () => 1;', // 2
      '  return inner;', // 3
      '}', // 4
      'export const arrow = (x: number) =>', // 5
      '  x + 1;', // 6
      'class Thing {', // 7
      '  method() {}', // 8
      '}', // 9
      'const plain = { a: 1 };', // 10
    ].join('\n');
    expect(codeUnits('x.ts', text).map((u) => [u.name, u.from, u.to, u.lines])).toEqual([
      ['outer', 1, 4, 4],
      ['arrow', 5, 6, 2],
      ['Thing', 7, 9, 3],
    ]);
  });

  it('reads production files only: no specs, testing helpers, generated code, benches or testkit', () => {
    const files = productionFiles(ROOT);
    expect(files).toContain('services/projector/src/consumer/projection-worker.ts');
    expect(
      files.filter((f) => /\.spec\.ts$|\/testing\/|\/generated\/|^bench\/|^test\/|^libs\/testkit\//.test(f)),
    ).toEqual([]);
  });

  it(`has no unit of ${MAX_LINES} lines or more but the allowed ones, and each allowed one is still that long`, () => {
    expect(ALLOWED.size).toBeLessThanOrEqual(5);
    const long = longUnits(ROOT, MAX_LINES);
    const found = new Set(long.map((u) => `${u.file}:${u.name}`));
    const unexpected = long
      .filter((u) => !ALLOWED.has(`${u.file}:${u.name}`))
      .map((u) => `${u.file}:${u.from}-${u.to} ${u.name} (${u.lines} lines)`);
    expect(unexpected, 'cut these, or allow them here with a reason').toEqual([]);
    // An allowed unit that was cut leaves the list, so the list stays the truth.
    expect([...ALLOWED.keys()].filter((k) => !found.has(k))).toEqual([]);
  });
});
