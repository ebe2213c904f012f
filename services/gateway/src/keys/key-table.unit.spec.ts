import type { KeyEvent, Plan } from '@cds/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyTable, hashKey, type Principal } from './key-table.ts';

const at = '2025-01-01T00:00:00.000Z';
let n = 0;
const ev = (type: KeyEvent['type'], data: Record<string, unknown>): KeyEvent =>
  ({ id: `${type}:${(n += 1)}`, type, version: 1, occurred_at: at, source: 'test', data }) as KeyEvent;
const hex20 = (i: number) => i.toString(16).padStart(20, '0');
/** A key, and ids shaped as the admin API makes them (compact) or otherwise (held beside). */
const keyOf = (i: number) => `k-${i}`;
const keyId = (i: number, odd = false) => (odd ? `key_odd${i}` : `key_${hex20(i)}`);
const accountId = (i: number, odd = false) => (odd ? `acc_odd${String(i).padStart(5, '0')}` : `acc_${hex20(i)}`);

const created = (i: number, account: string, plan: Plan = 'free', odd = false) =>
  ev('key.created', { key_id: keyId(i, odd), account_id: account, key_hash: hashKey(keyOf(i)), plan });
const revoked = (i: number, account: string, odd = false) =>
  ev('key.revoked', { key_id: keyId(i, odd), account_id: account, key_hash: hashKey(keyOf(i)) });
const closed = (account: string) =>
  ev('account.closed', { account_id: account, name: 'x', plan: 'free', created_at: at, closed_at: at });

describe('KeyTable', () => {
  it('answers a key inserted, refuses it once revoked, and answers it again when created anew', () => {
    const t = new KeyTable();
    const a = accountId(1);
    t.apply(ev('account.created', { account_id: a, name: 'A', plan: 'business' }));
    t.apply(created(1, a, 'business'));
    expect(t.lookup(keyOf(1))).toEqual({ keyId: keyId(1), accountId: a, plan: 'business' });
    expect(t.lookup(keyOf(2))).toBeUndefined();
    t.apply(revoked(1, a));
    expect([t.lookup(keyOf(1)), t.activeKeys]).toEqual([undefined, 0]);
    t.apply(revoked(1, a)); // twice: nothing more
    t.apply(created(1, a, 'business'));
    expect(t.lookup(keyOf(1))?.keyId).toBe(keyId(1));
    expect([t.activeKeys, t.accounts]).toEqual([1, 1]);
  });

  it('reads the plan from the account at lookup time: a plan change applies to every key at once', () => {
    const t = new KeyTable();
    const a = accountId(2);
    for (const i of [1, 2, 3]) t.apply(created(i, a, 'free'));
    t.apply(ev('account.plan_changed', { account_id: a, plan: 'enterprise', previous_plan: 'free' }));
    for (const i of [1, 2, 3]) expect(t.lookup(keyOf(i))?.plan).toBe('enterprise');
    // A key created for a held account keeps the account's plan, not the (older) one the event carries.
    t.apply(created(4, a, 'free'));
    expect(t.lookup(keyOf(4))?.plan).toBe('enterprise');
  });

  it('answers a key looked up again with the same frozen principal, until its plan changes or it is revoked', () => {
    const t = new KeyTable();
    const a = accountId(8);
    t.apply(created(1, a, 'free'));
    const first = t.lookup(keyOf(1))!;
    expect(Object.isFrozen(first)).toBe(true);
    expect(t.lookup(keyOf(1))).toBe(first);
    t.apply(ev('account.plan_changed', { account_id: a, plan: 'business', previous_plan: 'free' }));
    expect(t.lookup(keyOf(1))).toEqual({ ...first, plan: 'business' });
    // Revoked, then its entry reused by another key: the other key's principal, never the old one.
    t.apply(revoked(1, a));
    t.apply(created(2, accountId(9), 'professional'));
    expect(t.lookup(keyOf(1))).toBeUndefined();
    expect(t.lookup(keyOf(2))).toEqual({ keyId: keyId(2), accountId: accountId(9), plan: 'professional' });
  });

  it('holds ids of another shape beside the compact ones, with the same answers', () => {
    const t = new KeyTable();
    const odd = accountId(3, true);
    t.apply(created(1, odd, 'professional', true));
    t.apply(created(2, odd, 'professional'));
    expect(t.lookup(keyOf(1))).toEqual({ keyId: keyId(1, true), accountId: odd, plan: 'professional' });
    expect(t.lookup(keyOf(2))).toEqual({ keyId: keyId(2), accountId: odd, plan: 'professional' });
    t.apply(revoked(1, odd, true));
    expect(t.lookup(keyOf(1))).toBeUndefined();
    expect(t.activeKeys).toBe(1);
  });

  it('refuses the keys of a closed account at once; the account leaves the table with its last key', () => {
    const t = new KeyTable();
    const a = accountId(4);
    const b = accountId(5, true);
    for (const acc of [a, b]) t.apply(ev('account.created', { account_id: acc, name: 'x', plan: 'business' }));
    t.apply(created(1, a));
    t.apply(created(2, a));
    t.apply(created(3, b));
    t.apply(closed(a));
    t.apply(closed(b));
    expect([t.lookup(keyOf(1)), t.lookup(keyOf(2)), t.lookup(keyOf(3))]).toEqual([undefined, undefined, undefined]);
    expect(t.accounts).toBe(2);
    // A plan change cannot reopen it.
    t.apply(ev('account.plan_changed', { account_id: a, plan: 'enterprise', previous_plan: 'business' }));
    expect(t.lookup(keyOf(1))).toBeUndefined();
    t.apply(revoked(1, a));
    expect(t.accounts).toBe(2);
    t.apply(revoked(2, a));
    t.apply(revoked(3, b));
    expect([t.activeKeys, t.accounts]).toEqual([0, 0]);
    // A closed account without keys leaves at once; an unknown one is no error.
    t.apply(ev('account.created', { account_id: accountId(6), name: 'x', plan: 'free' }));
    expect(t.accounts).toBe(1);
    t.apply(closed(accountId(6)));
    t.apply(closed(accountId(7)));
    expect(t.accounts).toBe(0);
  });

  it('grows past many rehashes and keeps every key; revoking most of them gives the room back to new ones', () => {
    const t = new KeyTable();
    const N = 70_000; // past four chunks and several index growths
    for (let i = 0; i < N; i++) t.apply(created(i, accountId(i % 1_000)));
    expect([t.activeKeys, t.accounts]).toEqual([N, 1_000]);
    for (let i = 0; i < N; i += 997) expect(t.lookup(keyOf(i))?.keyId).toBe(keyId(i));
    const full = t.bytes;
    for (let i = 0; i < N; i++) if (i % 10 !== 0) t.apply(revoked(i, accountId(i % 1_000)));
    expect(t.activeKeys).toBe(N / 10);
    for (let i = 0; i < 100; i++) expect(t.lookup(keyOf(i)) !== undefined).toBe(i % 10 === 0);
    // Reinserting as many keys as were revoked reuses the freed entries: no new chunk.
    for (let i = N; i < 2 * N - N / 10; i++) t.apply(created(i, accountId(i % 1_000)));
    expect(t.activeKeys).toBe(N);
    expect(t.bytes).toBeLessThanOrEqual(full);
  });

  it('tells keys apart whose hashes start alike (one probe chain): only the whole hash matches', () => {
    // Keys whose SHA-256 share the first byte, and so often the first index slots.
    const t = new KeyTable();
    const alike: number[] = [];
    const first = hashKey(keyOf(0)).slice(0, 2);
    for (let i = 0; alike.length < 200; i++) if (hashKey(keyOf(i)).startsWith(first)) alike.push(i);
    for (const i of alike) t.apply(created(i, accountId(1)));
    for (const i of alike.slice(0, 100)) t.apply(revoked(i, accountId(1)));
    for (const [j, i] of alike.entries()) expect(t.lookup(keyOf(i))?.keyId).toBe(j < 100 ? undefined : keyId(i));
    expect(t.activeKeys).toBe(100);
  });

  it('retains at most 64 bytes per key at 300,000 keys of 3 per account', () => {
    const t = new KeyTable();
    for (let i = 0; i < 300_000; i++) t.apply(created(i, accountId(Math.floor(i / 3))));
    expect(t.bytes / t.activeKeys).toBeLessThanOrEqual(64);
  });

  it('answers like a Map of the same events (property)', () => {
    const keys = 12;
    const accounts = 4;
    const op = fc.oneof(
      fc.record({
        t: fc.constant('create' as const),
        k: fc.nat(keys - 1),
        a: fc.nat(accounts - 1),
        plan: fc.constantFrom<Plan>('free', 'business'),
      }),
      fc.record({ t: fc.constant('revoke' as const), k: fc.nat(keys - 1) }),
      fc.record({
        t: fc.constant('plan' as const),
        a: fc.nat(accounts - 1),
        plan: fc.constantFrom<Plan>('free', 'enterprise'),
      }),
      fc.record({
        t: fc.constant('open' as const),
        a: fc.nat(accounts - 1),
        plan: fc.constantFrom<Plan>('free', 'professional'),
      }),
      fc.record({ t: fc.constant('close' as const), a: fc.nat(accounts - 1) }),
    );
    // Odd-numbered keys and accounts have ids of another shape (held in the Maps beside).
    const kid = (k: number) => keyId(k, k % 2 === 1);
    const aid = (a: number) => accountId(a, a % 2 === 1);
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const table = new KeyTable();
        const keyModel = new Map<number, { keyId: string; account: number }>();
        const accountModel = new Map<number, { plan: Plan; closed: boolean }>();
        const keysOf = (a: number) => [...keyModel.values()].filter((k) => k.account === a).length;
        const leaveIfDone = (a: number) => {
          if (accountModel.get(a)?.closed === true && keysOf(a) === 0) accountModel.delete(a);
        };
        for (const o of ops) {
          switch (o.t) {
            case 'create': {
              const old = keyModel.get(o.k);
              keyModel.delete(o.k);
              if (old !== undefined) leaveIfDone(old.account);
              if (!accountModel.has(o.a)) accountModel.set(o.a, { plan: o.plan, closed: false });
              keyModel.set(o.k, { keyId: kid(o.k), account: o.a });
              table.apply(
                ev('key.created', {
                  key_id: kid(o.k),
                  account_id: aid(o.a),
                  key_hash: hashKey(keyOf(o.k)),
                  plan: o.plan,
                }),
              );
              break;
            }
            case 'revoke': {
              const old = keyModel.get(o.k);
              keyModel.delete(o.k);
              if (old !== undefined) leaveIfDone(old.account);
              table.apply(
                ev('key.revoked', {
                  key_id: kid(o.k),
                  account_id: aid(old?.account ?? 0),
                  key_hash: hashKey(keyOf(o.k)),
                }),
              );
              break;
            }
            case 'plan':
            case 'open': {
              const acc = accountModel.get(o.a);
              if (acc === undefined) accountModel.set(o.a, { plan: o.plan, closed: false });
              else if (!acc.closed) acc.plan = o.plan;
              table.apply(
                o.t === 'open'
                  ? ev('account.created', { account_id: aid(o.a), name: 'x', plan: o.plan })
                  : ev('account.plan_changed', { account_id: aid(o.a), plan: o.plan, previous_plan: 'free' }),
              );
              break;
            }
            case 'close': {
              const acc = accountModel.get(o.a);
              if (acc !== undefined) acc.closed = true;
              leaveIfDone(o.a);
              table.apply(closed(aid(o.a)));
              break;
            }
          }
          for (let k = 0; k < keys; k++) {
            const entry = keyModel.get(k);
            const acc = entry === undefined ? undefined : accountModel.get(entry.account);
            const expected: Principal | undefined =
              entry === undefined || acc === undefined || acc.closed
                ? undefined
                : { keyId: entry.keyId, accountId: aid(entry.account), plan: acc.plan };
            expect(table.lookup(keyOf(k))).toEqual(expected);
          }
          expect([table.activeKeys, table.accounts]).toEqual([keyModel.size, accountModel.size]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
