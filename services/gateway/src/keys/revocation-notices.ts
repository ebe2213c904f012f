import { KEY_REVOCATION_NOTICES, KeyEvent } from '@cds/contracts';
import type { Logger } from '@cds/telemetry';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * How long a notice refuses its key without the key stream confirming the revocation: longer than
 * a key follower takes to hear the stream after losing its NATS server (a 10 s bound, see
 * docs/reliability.md "Revocation time"), short enough that a revocation the admin API failed to
 * store (it answered 503: retry) does not refuse a live key for long.
 */
export const NOTICE_TTL_MS = 30_000;

/**
 * Revocations heard on the admin API's notices (core NATS, KEY_REVOCATION_NOTICES) before the key
 * stream delivers them: JetStream delivers an event only once it is stored (an fsync each, with
 * `sync_interval: always`), the notice as soon as it is published. A noticed key is refused until
 * the stream's key.revoked reaches the key table (`settled`), or for NOTICE_TTL_MS at most. A notice
 * can only take a key away, never give one back: a lost notice leaves the revocation to the stream,
 * as before. Costs a request nothing while no notice is pending (one size check).
 */
export class RevocationNotices {
  readonly #until = new Map<string, number>();
  readonly #nowMs: () => number;
  readonly #ttlMs: number;

  readonly #onHeard: () => void;

  constructor(opts: { nowMs: () => number; ttlMs?: number; onHeard?: () => void }) {
    this.#nowMs = opts.nowMs;
    this.#ttlMs = opts.ttlMs ?? NOTICE_TTL_MS;
    this.#onHeard = opts.onHeard ?? (() => undefined);
  }

  /** Notices waiting for the stream. */
  get size(): number {
    return this.#until.size;
  }

  /** A notice of the key's revocation arrived. */
  heard(keyId: string): void {
    const now = this.#nowMs();
    // Lapsed notices go as new ones come, so the map holds at most a TTL's worth.
    for (const [id, until] of this.#until) if (until <= now) this.#until.delete(id);
    this.#until.set(keyId, now + this.#ttlMs);
    this.#onHeard();
  }

  /** The key stream's key.revoked reached the key table: the table refuses the key from now on. */
  settled(keyId: string): void {
    this.#until.delete(keyId);
  }

  /** Whether a pending notice refuses the key. */
  refuses(keyId: string): boolean {
    if (this.#until.size === 0) return false;
    const until = this.#until.get(keyId);
    if (until === undefined) return false;
    if (until > this.#nowMs()) return true;
    this.#until.delete(keyId);
    return false;
  }
}

/**
 * Listens to the revocation notices; each is a key.revoked event as the admin API publishes it (a
 * payload that is not one is logged and dropped). `ready` resolves once the server has the
 * subscription.
 */
export function subscribeRevocationNotices(
  nc: NatsConnection,
  notices: RevocationNotices,
  logger: Logger,
): { ready: Promise<void>; close(): void } {
  const sub = nc.subscribe(KEY_REVOCATION_NOTICES, {
    callback: (err, msg) => {
      if (err !== null) return;
      let parsed;
      try {
        parsed = KeyEvent.safeParse(msg.json());
      } catch {
        parsed = undefined;
      }
      if (parsed?.success === true && parsed.data.type === 'key.revoked') notices.heard(parsed.data.data.key_id);
      else logger.warn({ subject: msg.subject }, 'revocation notice that is no key.revoked event; dropped');
    },
  });
  return { ready: nc.flush(), close: () => sub.unsubscribe() };
}
