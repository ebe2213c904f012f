import { describe, expect, it } from 'vitest';
import { BLOCK_MIN_PER_MINUTE, BLOCK_SIZE, BLOCK_TTL_MS, createBlocks, type BlockEnd } from './blocks.ts';

const LARGE = { perMinute: 1000, perDay: 100_000 };
const NOW = 1_700_000_010; // 10 s into a minute
const DAY_INDEX = Math.floor(NOW / 86_400);

function setup(keyDays: Record<string, number> = { key_a: DAY_INDEX }) {
  const ends: BlockEnd[] = [];
  const blocks = createBlocks({ end: (e) => ends.push(e), keyDay: (k) => keyDays[k], maxAccounts: 100 });
  /** A take answered with a block of BLOCK_SIZE: the counts after it, as the script returns them. */
  const handOut = (t: number, before = 0) =>
    blocks.answered({ accountId: 'acc', limits: LARGE, want: BLOCK_SIZE, at: t }, BLOCK_SIZE, {
      mc: before + BLOCK_SIZE,
      dc: before + BLOCK_SIZE,
      now: NOW,
    });
  return { blocks, ends, handOut };
}

describe('blocks', () => {
  it(`asks for one from an account's second take within ${BLOCK_TTL_MS} ms, for plans of ${BLOCK_MIN_PER_MINUTE} a minute or more, one at a time`, () => {
    const { blocks } = setup();
    expect(blocks.want('acc', LARGE, 0)).toBe(1);
    expect(blocks.want('acc', LARGE, 10)).toBe(BLOCK_SIZE);
    // already asking: the account's other requests meanwhile ask for none
    expect(blocks.want('acc', LARGE, 20)).toBe(1);
    blocks.failed('acc');
    expect(blocks.want('acc', LARGE, 30)).toBe(BLOCK_SIZE);
    expect(blocks.want('acc_late', LARGE, 0)).toBe(1);
    expect(blocks.want('acc_late', LARGE, BLOCK_TTL_MS + 1)).toBe(1);
    const small = { perMinute: BLOCK_MIN_PER_MINUTE - 1, perDay: 100_000 };
    blocks.want('acc_small', small, 0);
    expect(blocks.want('acc_small', small, 10)).toBe(1);
  });

  it('gives the take its own count, then spends the rest one by one, each with its own count', () => {
    const { blocks, handOut } = setup();
    const first = handOut(0, 100);
    expect([first.admitted, first.minute.remaining]).toEqual([true, 1000 - 101]);
    const spent = Array.from({ length: BLOCK_SIZE - 1 }, () => blocks.spend('acc', LARGE, 'key_a', 1));
    expect(spent.map((d) => d!.minute.remaining)).toEqual(
      Array.from({ length: BLOCK_SIZE - 1 }, (_, i) => 1000 - 102 - i),
    );
    expect(blocks.spend('acc', LARGE, 'key_a', 1)).toBeUndefined();
  });

  it('is not spent by a key not recorded today, for other limits, or once its time is over', () => {
    const { blocks, handOut } = setup();
    handOut(0);
    expect(blocks.spend('acc', LARGE, 'key_new', 1)).toBeUndefined();
    expect(blocks.spend('acc', { perMinute: 500, perDay: 500_000 }, 'key_a', 1)).toBeUndefined();
    expect(blocks.spend('acc', LARGE, 'key_a', BLOCK_TTL_MS)).toBeUndefined();
    expect(blocks.spend('acc', LARGE, '', BLOCK_TTL_MS - 1)).toBeDefined();
  });

  it("checks a 304 against it without spending, and takes a 304's admission back for the same minute", () => {
    const { blocks, handOut } = setup();
    const taken = handOut(0);
    expect(blocks.check('acc', LARGE, 'key_a', 1)!.minute.remaining).toBe(1000 - 1);
    expect(blocks.check('acc', LARGE, 'key_a', 2)!.minute.remaining).toBe(1000 - 1);
    expect(blocks.giveBack('acc', LARGE, taken, 3)!.minute.remaining).toBe(1000);
    expect(blocks.giveBack('acc', LARGE, { ...taken, now: NOW + 60 }, 3)).toBeUndefined();
    // the admission given back is spent again
    expect(blocks.spend('acc', LARGE, 'key_a', 4)!.minute.remaining).toBe(1000 - 1);
  });

  it('ends the block it replaces, sending back its unspent rest and its share of `o`', () => {
    const { blocks, ends, handOut } = setup();
    handOut(0);
    blocks.spend('acc', LARGE, 'key_a', 1);
    handOut(2, BLOCK_SIZE);
    expect(ends).toEqual([
      {
        accountId: 'acc',
        limits: LARGE,
        minute: Math.floor(NOW / 60),
        day: DAY_INDEX,
        units: BLOCK_SIZE - 2,
        held: BLOCK_SIZE - 1,
      },
    ]);
  });

  it('holds no block for a take answered with one admission, or refused', () => {
    const { blocks } = setup();
    const one = blocks.answered({ accountId: 'acc', limits: LARGE, want: BLOCK_SIZE, at: 0 }, 1, {
      mc: 5,
      dc: 5,
      now: NOW,
    });
    expect([one.admitted, one.minute.remaining]).toEqual([true, 995]);
    const refused = blocks.answered({ accountId: 'acc', limits: LARGE, want: 1, at: 0 }, 0, {
      mc: 1000,
      dc: 1000,
      now: NOW,
    });
    expect([refused.admitted, refused.refusedBy]).toEqual([false, 'minute']);
    expect(blocks.spend('acc', LARGE, 'key_a', 1)).toBeUndefined();
  });
});
