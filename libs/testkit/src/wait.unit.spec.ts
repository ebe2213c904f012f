import { describe, expect, it } from 'vitest';
import { waitUntil } from './wait.ts';

describe('waitUntil', () => {
  it("returns the probe's value once a try succeeds, after the failed ones", async () => {
    let tries = 0;
    const value = await waitUntil(
      'the answer',
      () => {
        tries += 1;
        return tries < 3 ? Promise.reject(new Error(`not yet (${tries})`)) : Promise.resolve({ tries });
      },
      5_000,
      { maxDelayMs: 5 },
    );
    expect(value).toEqual({ tries: 3 });
  });

  it('throws with the label and the last failure once the time is up', async () => {
    const err = await waitUntil('the server', () => Promise.reject(new Error('connection refused')), 30).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('the server did not become ready within 30 ms: connection refused');
    expect(((err as Error).cause as Error).message).toBe('connection refused');
  });

  it('stops at once on the error giveUp returns', async () => {
    const dead = new Error('the process exited');
    let tries = 0;
    const probe = () => {
      tries += 1;
      return Promise.reject(new Error('no answer'));
    };
    await expect(waitUntil('x', probe, 5_000, { giveUp: () => (tries >= 2 ? dead : undefined) })).rejects.toBe(dead);
    expect(tries).toBe(2);
  });
});
