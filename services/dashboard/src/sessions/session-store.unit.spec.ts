import { describe, expect, it } from 'vitest';
import { sessionStatus, sessionTtlMs, type SessionPolicy } from './session-store.ts';

const policy: SessionPolicy = { idleMs: 30 * 60_000, absoluteMs: 12 * 3600_000 };
const t0 = Date.UTC(2026, 0, 1);

describe('session expiry', () => {
  it('is active within the idle time and ends after it', () => {
    const s = { user_id: 'u', created_ms: t0, seen_ms: t0 };
    expect(sessionStatus(s, t0 + policy.idleMs - 1, policy)).toBe('active');
    expect(sessionStatus(s, t0 + policy.idleMs, policy)).toBe('idle_expired');
  });
  it('ends at the absolute limit however active the user is', () => {
    const busy = { user_id: 'u', created_ms: t0, seen_ms: t0 + policy.absoluteMs - 1_000 };
    expect(sessionStatus(busy, t0 + policy.absoluteMs - 1, policy)).toBe('active');
    expect(sessionStatus(busy, t0 + policy.absoluteMs, policy)).toBe('absolute_expired');
  });
  it('keeps a session in Redis for the idle time, cut at the absolute end', () => {
    const s = { user_id: 'u', created_ms: t0, seen_ms: t0 };
    expect(sessionTtlMs(s, t0, policy)).toBe(policy.idleMs);
    expect(sessionTtlMs(s, t0 + policy.absoluteMs - 60_000, policy)).toBe(60_000);
    expect(sessionTtlMs(s, t0 + policy.absoluteMs + 5, policy)).toBe(1);
  });
});
