import { describe, expect, it } from 'vitest';
import { seriesProjection } from '../projections/index.ts';
import { seriesRecorded } from '../testing/events.ts';
import { projectedNotices } from './after-apply.ts';

const attempt = { signal: new AbortController().signal, progress: () => {} };

describe('projected notices', () => {
  it('one per commodity an event changed, with its highest changed position', async () => {
    const sent: [string, string][] = [];
    const react = projectedNotices({ publish: (s, d) => sent.push([s, d]) }, seriesProjection);
    const gold = seriesRecorded('GOLD', [['2024-01-02', 1]]);
    const oil = seriesRecorded('CRUDE_OIL_WTI', [['2024-01-02', 1]]);
    const events = [
      { event: gold, position: 3, storedAtMs: 0 },
      { event: gold, position: 5, storedAtMs: 0 },
      { event: oil, position: 6, storedAtMs: 0 },
      { event: gold, position: 8, storedAtMs: 0 },
    ];
    await react({ events, result: { changedBy: new Set([3, 5, 6]), reflected: new Set([8]) } }, attempt);
    expect(sent).toEqual([
      ['cds.projected.series.GOLD', '{"position":5}'],
      ['cds.projected.series.CRUDE_OIL_WTI', '{"position":6}'],
    ]);
  });

  it('nothing when no event changed anything', async () => {
    const sent: string[] = [];
    const react = projectedNotices({ publish: (s) => sent.push(s) }, seriesProjection);
    const event = seriesRecorded('GOLD', [['2024-01-02', 1]]);
    await react(
      { events: [{ event, position: 1, storedAtMs: 0 }], result: { changedBy: new Set(), reflected: new Set() } },
      attempt,
    );
    expect(sent).toEqual([]);
  });
});
