import { describe, expect, it } from 'vitest';
import { takeRoundRobin } from './fair-share.ts';

const due = (account: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ account_id: account, id: `${account}${i}` }));
const ids = (items: { id: string }[]) => items.map((i) => i.id);
const unlimited = () => Infinity;

describe('round-robin claims by account', () => {
  it("takes another account's one delivery in the first round, behind a backlog of older ones (global FIFO would not)", () => {
    const backlog = [...due('A', 50), ...due('B', 1)];
    expect(ids(takeRoundRobin(backlog, 4, unlimited))).toEqual(['A0', 'B0', 'A1', 'A2']);
    expect(ids(takeRoundRobin(backlog, 1, unlimited))).toEqual(['A0']);
    expect(ids(takeRoundRobin(backlog, 2, unlimited))).toEqual(['A0', 'B0']);
  });

  it('gives each account its turn in the order of its oldest delivery, oldest first within one', () => {
    const mixed = [
      { account_id: 'C', id: 'C0' },
      { account_id: 'A', id: 'A0' },
      { account_id: 'C', id: 'C1' },
      { account_id: 'B', id: 'B0' },
      { account_id: 'A', id: 'A1' },
    ];
    expect(ids(takeRoundRobin(mixed, 10, unlimited))).toEqual(['C0', 'A0', 'B0', 'C1', 'A1']);
  });

  it("stops at an account's room (its cap less what it has in flight), and leaves the rest to others", () => {
    const room = (account: string) => ({ A: 2, B: 0 })[account] ?? 4;
    const picked = takeRoundRobin([...due('A', 20), ...due('B', 3), ...due('C', 1)], 16, room);
    expect(ids(picked)).toEqual(['A0', 'C0', 'A1']);
    expect(takeRoundRobin(due('A', 5), 3, () => 0)).toEqual([]);
    expect(takeRoundRobin([], 3, unlimited)).toEqual([]);
  });
});
