import type { Redis } from '@cds/redis';
import { describe, expect, it } from 'vitest';
import { usagePage } from './page.ts';
import { createUsageReader } from './usage-reader.ts';

const DAY = 86_400;
const today = 20_596;
const nowS = today * DAY + 3_600 + 30; // 01:00:30 UTC
const minute = Math.floor(nowS / 60);

/** Redis answering the reader's MULTI (TIME, HGETALL, HGETALL) from the given hashes. */
function fakeRedis(hashes: Record<string, Record<string, string>>): Redis {
  return {
    multi() {
      const results: [null, unknown][] = [];
      const chain = {
        time: () => (results.push([null, [String(nowS), '123456']]), chain),
        hgetall: (key: string) => (results.push([null, hashes[key] ?? {}]), chain),
        exec: () => Promise.resolve(results),
      };
      return chain;
    },
  } as unknown as Redis;
}

const read = (rate: Record<string, string>, usage: Record<string, string>) =>
  createUsageReader({
    redis: fakeRedis({ 'rl:{acc_1}': rate, 'usage:{acc_1}': usage }),
    ratePrefix: 'rl:',
    usagePrefix: 'usage:',
  }).read('acc_1', 3);

describe("reading the gateway's hashes through their contract", () => {
  it('reads the current windows, the days and the keys’ last days', async () => {
    const usage = await read(
      { m: String(minute), mc: '7', d: String(today), dc: '321' },
      { [today]: '321', [today - 2]: '50', [today - 40]: '999', 'k:key_abcdefgh01': String(today - 2) },
    );
    expect(usage).toEqual({
      minute: 7,
      day: 321,
      daily: [
        { day: today - 2, date: '2026-05-21', count: 50 },
        { day: today - 1, date: '2026-05-22', count: 0 },
        { day: today, date: '2026-05-23', count: 321 },
      ],
      lastUsedDay: new Map([['key_abcdefgh01', today - 2]]),
      today,
      unreadable: [],
    });
  });

  it("takes today's count, and the last active day's before a later one begins, from the window hash", async () => {
    // The gateway moves a day's count to the usage hash only when a later day begins.
    const now = await read({ m: String(minute), mc: '7', d: String(today), dc: '321' }, { [today - 2]: '50' });
    expect(now.daily.map((d) => d.count)).toEqual([50, 0, 321]);
    const lastActive = await read({ m: String(minute - 600), mc: '2', d: String(today - 1), dc: '17' }, {});
    expect(lastActive).toMatchObject({ minute: 0, day: 0, unreadable: [] });
    expect(lastActive.daily.map((d) => d.count)).toEqual([0, 17, 0]);
  });

  it('counts windows that are over as 0, and missing hashes as no requests', async () => {
    const stale = await read({ m: String(minute - 1), mc: '7', d: String(today - 1), dc: '321' }, {});
    expect(stale).toMatchObject({ minute: 0, day: 0, unreadable: [] });
    expect(stale.daily.map((d) => d.count)).toEqual([0, 321, 0]);
    const none = await read({}, {});
    expect(none).toMatchObject({ minute: 0, day: 0, unreadable: [] });
    expect(none.daily.map((d) => d.count)).toEqual([0, 0, 0]);
  });

  it('shows a malformed rate hash as no requests and says so, still reading the usage hash', async () => {
    const usage = await read({ m: String(minute), mc: 'lots', d: String(today), dc: '321' }, { [today]: '321' });
    expect(usage).toMatchObject({ minute: 0, day: 0, unreadable: ['rate'] });
    expect(usage.daily.at(-1)?.count).toBe(321);
  });

  it('shows a malformed usage hash as no requests and says so, still reading the windows', async () => {
    const usage = await read(
      { m: String(minute), mc: '7', d: String(today), dc: '321' },
      { [today]: '321', 'k:key_abcdefgh01': 'yesterday' },
    );
    expect(usage).toMatchObject({ minute: 7, day: 321, unreadable: ['usage'] });
    // Today's count comes from the window hash, which was readable.
    expect(usage.daily.map((d) => d.count)).toEqual([0, 0, 321]);
    expect(usage.lastUsedDay.size).toBe(0);
  });

  it('puts a notice on the usage page when a hash was unreadable, and none otherwise', async () => {
    const notice = "Some of the gateway's counters for your account could not be read just now";
    const bad = await read({ mc: '-1' }, {});
    expect(usagePage({ plan: 'free', usage: bad }).value).toContain(notice.replace("'", '&#39;'));
    const good = await read({}, {});
    expect(usagePage({ plan: 'free', usage: good }).value).not.toContain('could not be read');
  });
});
