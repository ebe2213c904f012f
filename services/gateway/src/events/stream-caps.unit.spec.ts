import { describe, expect, it } from 'vitest';
import { SSE_STREAM_CAP_DEFAULTS, StreamCaps } from './stream-caps.ts';

describe('StreamCaps', () => {
  it('admits up to the per-client cap for one client, and up to the replica cap in all', () => {
    const caps = new StreamCaps({ maxStreams: 3, maxStreamsPerClient: 2 });
    const a1 = caps.take('198.51.100.1');
    const a2 = caps.take('198.51.100.1');
    expect([a1.ok, a2.ok]).toEqual([true, true]);
    expect(caps.take('198.51.100.1')).toEqual({ ok: false, cap: 'client' });
    // Another address of the same /64 is the same client.
    const v6 = [caps.take('2001:db8::1'), caps.take('2001:db8::2:1')];
    expect(v6[0]!.ok).toBe(true);
    expect(v6[1]).toEqual({ ok: false, cap: 'replica' });
    expect(caps.size).toBe(3);
    expect(caps.heldBy('198.51.100.1')).toBe(2);
  });

  it('frees a place once however often it is released, and forgets clients with no place', () => {
    const caps = new StreamCaps({ maxStreams: 2, maxStreamsPerClient: 1 });
    const a = caps.take('2001:db8::1');
    if (!a.ok) throw new Error('refused');
    expect(caps.take('2001:db8::ffff')).toEqual({ ok: false, cap: 'client' });
    const b = caps.take('198.51.100.2');
    if (!b.ok) throw new Error('refused');
    a.place.release();
    a.place.release();
    a.place.release();
    expect(caps.size).toBe(1);
    expect(caps.heldBy('2001:db8::1')).toBe(0);
    expect(caps.heldBy('198.51.100.2')).toBe(1);
    expect(caps.take('2001:db8::2').ok).toBe(true);
    expect(caps.take('192.0.2.9')).toEqual({ ok: false, cap: 'replica' });
  });

  it('counts 10,000 opens and closes in any order back to zero', () => {
    const caps = new StreamCaps({ maxStreams: 100, maxStreamsPerClient: 10 });
    const held: { release(): void }[] = [];
    let refused = 0;
    for (let i = 0; i < 10_000; i++) {
      const d = caps.take(`10.0.${i % 37}.${i % 11}`);
      if (d.ok) held.push(d.place);
      else refused += 1;
      // Close a pseudo-random stream now and then (and twice, as a close and an error path may both do).
      if (i % 3 === 0 && held.length > 0) {
        const [p] = held.splice((i * 7919) % held.length, 1);
        p!.release();
        p!.release();
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect(caps.size).toBe(held.length);
    for (const p of held) p.release();
    expect(caps.size).toBe(0);
  });

  it('defaults to the sizes of config.ts (docs/reliability.md)', () => {
    const caps = new StreamCaps();
    expect(caps.maxStreams).toBe(SSE_STREAM_CAP_DEFAULTS.maxStreams);
    expect(caps.maxStreamsPerClient).toBe(SSE_STREAM_CAP_DEFAULTS.maxStreamsPerClient);
    // 500 streams x (256 KiB unsent + ~24 KiB of one event and the socket's objects) < 384 MiB - 128 MiB cache - ~100 MiB process.
    expect(SSE_STREAM_CAP_DEFAULTS.maxStreams * (256 + 24) * 1024).toBeLessThan((384 - 128 - 100) * 1024 * 1024);
  });
});
