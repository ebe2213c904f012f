import { describe, expect, it } from 'vitest';
import {
  AnonymousHashBudgetError,
  createHashScheduler,
  PasswordHasherBusyError,
  type HashPriority,
  type HashSchedulerLimits,
} from './hash-scheduler.ts';
import { createPasswordHasher, hashPassword } from './password.ts';

const LIMITS: HashSchedulerLimits = {
  concurrent: 1,
  waiting: 16,
  anonymousWaiting: 8,
  anonymous: { burst: 4, perSecond: 0.5 },
};

/** Work that finishes when the test says so, recording the order in which work started. */
function controlledWork(started: string[]) {
  const finishers = new Map<string, () => void>();
  const work = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      finishers.set(name, () => resolve(name));
    });
  const finish = async (name: string) => {
    finishers.get(name)?.();
    // Let the hand-over and the next work's start run.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { work, finish };
}

describe('the password hasher scheduler (fake clock)', () => {
  it('admits a burst of anonymous hashes, then answers at once with a Retry-After until the bucket refills', async () => {
    let now = 0;
    const s = createHashScheduler({ ...LIMITS, concurrent: 10 }, () => now);
    const quick = () => Promise.resolve('done');
    for (let i = 0; i < 4; i++) await expect(s.run('anonymous', quick)).resolves.toBe('done');
    const refused = await s.run('anonymous', quick).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AnonymousHashBudgetError);
    expect((refused as AnonymousHashBudgetError).retryAfter).toBe(2);
    // A signed-in user's hash does not need the budget.
    await expect(s.run('user', quick)).resolves.toBe('done');
    now += 1_000; // half a token
    expect((await s.run('anonymous', quick).catch((err: unknown) => err)) instanceof AnonymousHashBudgetError).toBe(
      true,
    );
    now += 1_000; // one token
    await expect(s.run('anonymous', quick)).resolves.toBe('done');
    // The bucket holds at most its burst, however long it was idle.
    now += 3_600_000;
    expect(s.anonymousTokens()).toBe(4);
  });

  it('runs a user hash next, ahead of every waiting anonymous one', async () => {
    const started: string[] = [];
    const { work, finish } = controlledWork(started);
    const s = createHashScheduler(LIMITS, () => 0);
    const results: Promise<string>[] = [];
    for (let i = 0; i < 4; i++) results.push(s.run('anonymous', work(`anon${i}`)));
    results.push(s.run('user', work('user')));
    await finish('anon0');
    expect(started).toEqual(['anon0', 'user']);
    await finish('user');
    await finish('anon1');
    await finish('anon2');
    await finish('anon3');
    expect(started).toEqual(['anon0', 'user', 'anon1', 'anon2', 'anon3']);
    expect(await Promise.all(results)).toHaveLength(5);
  });

  it('keeps its own waiting room per priority: a full anonymous queue neither blocks nor fills the user one', async () => {
    const started: string[] = [];
    const { work, finish } = controlledWork(started);
    const s = createHashScheduler({ ...LIMITS, anonymous: { burst: 100, perSecond: 1 } }, () => 0);
    const anon: Promise<unknown>[] = [];
    // One running and 8 waiting; the 10th anonymous is refused as busy without being queued.
    for (let i = 0; i < 9; i++) anon.push(s.run('anonymous', work(`anon${i}`)));
    await expect(s.run('anonymous', work('anon9'))).rejects.toBeInstanceOf(PasswordHasherBusyError);
    const user = s.run('user', work('user'));
    await finish('anon0');
    expect(started.at(-1)).toBe('user');
    await finish('user');
    await expect(user).resolves.toBe('user');
    for (let i = 1; i < 9; i++) await finish(`anon${i}`);
    await Promise.all(anon);
  });

  it('a flood of anonymous hashes delays a user hash by at most the one already running (real scrypt)', async () => {
    const params = { N: 2 ** 10, r: 8, p: 1 };
    const hasher = createPasswordHasher(params, LIMITS, () => 0);
    const stored = await hashPassword('correct horse battery staple', params);
    await hasher.burn('makes the dummy hash'); // spends one token: 3 left
    const finished: HashPriority[] = [];
    const flood = Array.from({ length: 30 }, () =>
      hasher.burn('a guess from the flood').then(
        () => finished.push('anonymous'),
        (err: unknown) => err,
      ),
    );
    // The flood is queued first (burn awaits its dummy once: a few microtasks, no I/O).
    for (let i = 0; i < 10; i++) await Promise.resolve();
    const user = hasher.verify('correct horse battery staple', stored, 'user').then((ok) => {
      finished.push('user');
      return ok;
    });
    const outcomes = await Promise.all(flood);
    expect(await user).toBe(true);
    // The budget (burst 4, one spent above) admitted 3 anonymous hashes; the other 27 were answered
    // at once, not queued.
    expect(outcomes.filter((o) => o instanceof AnonymousHashBudgetError)).toHaveLength(27);
    expect(finished.filter((f) => f === 'anonymous')).toHaveLength(3);
    // The user's hash ran right after the first anonymous one: one hash of delay, not three.
    expect(finished).toEqual(['anonymous', 'user', 'anonymous', 'anonymous']);
  });
});
