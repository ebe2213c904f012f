import type { KeyEvent, Plan } from '@cds/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activeKeysOf, applyKeyEvent, createKeysModel, keysOf, type KeysModel } from './model.ts';

// The admin API's accounts-and-keys model, folded from key events: given events, when one more,
// then the state; with the compacted stream's replay (one message per subject) as a case.
const ACCOUNT = 'acc_0123456789ab';
const HASH = 'a'.repeat(64);
let n = 0;
const ev = <T extends KeyEvent['type']>(
  type: T,
  data: Extract<KeyEvent, { type: T }>['data'],
  occurredAt = '2026-11-27T10:00:00.000Z',
) =>
  ({
    id: `${type}:${(n += 1)}`,
    type,
    version: 1,
    occurred_at: occurredAt,
    source: 'test',
    data,
  }) as KeyEvent;

const closed = ev(
  'account.closed',
  {
    account_id: ACCOUNT,
    name: 'Acme',
    plan: 'business',
    created_at: '2026-01-02T03:04:05.000Z',
    closed_at: '2026-11-27T12:00:00.000Z',
  },
  '2026-11-27T12:00:00.000Z',
);

function fold(events: KeyEvent[]): KeysModel {
  const model = createKeysModel();
  events.forEach((e, i) => applyKeyEvent(model, e, i + 1));
  return model;
}

describe('keys model: account.closed', () => {
  it('closes a known account, keeping its name, plan and creation time', () => {
    const model = fold([
      ev('account.created', { account_id: ACCOUNT, name: 'Acme', plan: 'free' }, '2026-01-02T03:04:05.000Z'),
      ev('account.plan_changed', { account_id: ACCOUNT, plan: 'business', previous_plan: 'free' }),
      closed,
    ]);
    expect(model.accounts.get(ACCOUNT)).toEqual({
      account_id: ACCOUNT,
      name: 'Acme',
      plan: 'business',
      created_at: '2026-01-02T03:04:05.000Z',
      closed_at: '2026-11-27T12:00:00.000Z',
      seq: 3,
    });
  });

  it('rebuilds the account from the closure alone (a replay of the compacted stream)', () => {
    const model = fold([
      ev('key.created', { key_id: 'key_0123456789ab', account_id: ACCOUNT, key_hash: HASH, plan: 'business' }),
      closed,
    ]);
    expect(model.accounts.get(ACCOUNT)).toEqual({
      account_id: ACCOUNT,
      name: 'Acme',
      plan: 'business',
      created_at: '2026-01-02T03:04:05.000Z',
      closed_at: '2026-11-27T12:00:00.000Z',
      seq: 2,
    });
    // The closure does not revoke by itself: the admin API publishes a revocation per key.
    expect(activeKeysOf(model, ACCOUNT).map((k) => k.key_id)).toEqual(['key_0123456789ab']);
    applyKeyEvent(model, ev('key.revoked', { key_id: 'key_0123456789ab', account_id: ACCOUNT, key_hash: HASH }), 3);
    expect(activeKeysOf(model, ACCOUNT)).toEqual([]);
    expect(keysOf(model, ACCOUNT).map((k) => k.status)).toEqual(['revoked']);
  });

  it('is final: a later closure keeps the first time; a replay of the same sequence changes nothing', () => {
    const model = fold([ev('account.created', { account_id: ACCOUNT, name: 'Acme', plan: 'free' }), closed]);
    const again = ev('account.closed', {
      account_id: ACCOUNT,
      name: 'Acme',
      plan: 'free',
      created_at: '2026-01-02T03:04:05.000Z',
      closed_at: '2026-12-01T00:00:00.000Z',
    });
    applyKeyEvent(model, again, 3);
    expect(model.accounts.get(ACCOUNT)).toMatchObject({ closed_at: '2026-11-27T12:00:00.000Z', seq: 3 });
    applyKeyEvent(model, closed, 2);
    expect(model.accounts.get(ACCOUNT)?.seq).toBe(3);
  });
});

describe('active key counts', () => {
  // Recounted from scratch: the incremental counts must always equal it, whatever the order of events
  // (a key before its account, as a replay of the compacted stream may give them).
  const recount = (model: KeysModel) => {
    const byAccount = new Map<string, number>();
    let free = 0;
    for (const k of model.keys.values()) {
      if (k.revoked_at !== undefined) continue;
      byAccount.set(k.account_id, (byAccount.get(k.account_id) ?? 0) + 1);
      if (model.accounts.get(k.account_id)?.plan === 'free') free += 1;
    }
    return { byAccount, free };
  };

  it('keeps the active keys per account and the active Free keys as a recount finds them', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ t: fc.constant('create' as const), k: fc.nat(7), a: fc.nat(2) }),
            fc.record({ t: fc.constant('revoke' as const), k: fc.nat(7), a: fc.nat(2) }),
            fc.record({
              t: fc.constant('open' as const),
              a: fc.nat(2),
              plan: fc.constantFrom<Plan>('free', 'business'),
            }),
            fc.record({
              t: fc.constant('plan' as const),
              a: fc.nat(2),
              plan: fc.constantFrom<Plan>('free', 'enterprise'),
            }),
            fc.record({
              t: fc.constant('close' as const),
              a: fc.nat(2),
              plan: fc.constantFrom<Plan>('free', 'business'),
            }),
          ),
          { maxLength: 60 },
        ),
        (ops) => {
          const model = createKeysModel();
          let seq = 0;
          for (const o of ops) {
            const account = `acc_0000000${o.a}`;
            const at = '2026-01-01T00:00:00.000Z';
            const event =
              o.t === 'create'
                ? ev('key.created', { key_id: `key_0000000${o.k}`, account_id: account, key_hash: HASH, plan: 'free' })
                : o.t === 'revoke'
                  ? ev('key.revoked', { key_id: `key_0000000${o.k}`, account_id: account, key_hash: HASH })
                  : o.t === 'open'
                    ? ev('account.created', { account_id: account, name: 'x', plan: o.plan })
                    : o.t === 'plan'
                      ? ev('account.plan_changed', { account_id: account, plan: o.plan, previous_plan: 'free' })
                      : ev('account.closed', {
                          account_id: account,
                          name: 'x',
                          plan: o.plan,
                          created_at: at,
                          closed_at: at,
                        });
            applyKeyEvent(model, event, (seq += 1));
            const expected = recount(model);
            expect(model.activeByAccount).toEqual(expected.byAccount);
            expect(model.activeFreeKeys).toBe(expected.free);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('keys model: dashboard session keys (issue #37)', () => {
  const ENDS = '2026-11-27T10:30:00.000Z';
  const created = (keyId: string, session: boolean) =>
    ev('key.created', {
      key_id: keyId,
      account_id: ACCOUNT,
      key_hash: HASH,
      plan: 'free',
      ...(session ? { session_expires_at: ENDS } : {}),
    });

  it('counts session keys apart from own keys, in and out of the Free counts with the plan', () => {
    const model = fold([
      ev('account.created', { account_id: ACCOUNT, name: 'Acme', plan: 'free' }),
      created('key_000000000001', false),
      created('key_000000000002', true),
      created('key_000000000003', true),
    ]);
    expect([model.activeByAccount.get(ACCOUNT), model.activeFreeKeys, model.activeFreeSessionKeys]).toEqual([1, 1, 2]);
    expect([...(model.sessionKeysByAccount.get(ACCOUNT) ?? [])]).toEqual(['key_000000000002', 'key_000000000003']);
    applyKeyEvent(
      model,
      ev('account.plan_changed', { account_id: ACCOUNT, plan: 'business', previous_plan: 'free' }),
      5,
    );
    expect([model.activeFreeKeys, model.activeFreeSessionKeys]).toEqual([0, 0]);
    applyKeyEvent(
      model,
      ev('account.plan_changed', { account_id: ACCOUNT, plan: 'free', previous_plan: 'business' }),
      6,
    );
    expect([model.activeFreeKeys, model.activeFreeSessionKeys]).toEqual([1, 2]);
    applyKeyEvent(
      model,
      ev('key.revoked', { key_id: 'key_000000000002', account_id: ACCOUNT, key_hash: HASH, session_expires_at: ENDS }),
      7,
    );
    expect([model.activeByAccount.get(ACCOUNT), model.activeFreeSessionKeys]).toEqual([1, 1]);
    expect(keysOf(model, ACCOUNT).map((k) => [k.key_id, k.status, k.session_expires_at])).toEqual([
      ['key_000000000001', 'active', undefined],
      ['key_000000000002', 'revoked', ENDS],
      ['key_000000000003', 'active', ENDS],
    ]);
  });

  it('keeps a session key marked after a replay of the compacted stream (its revocation alone)', () => {
    const model = fold([
      ev('account.created', { account_id: ACCOUNT, name: 'Acme', plan: 'free' }),
      ev('key.revoked', { key_id: 'key_000000000002', account_id: ACCOUNT, key_hash: HASH, session_expires_at: ENDS }),
    ]);
    expect(keysOf(model, ACCOUNT)[0]).toMatchObject({ status: 'revoked', session_expires_at: ENDS });
    expect([model.activeFreeSessionKeys, model.sessionKeysByAccount.size]).toEqual([0, 0]);
  });
});
