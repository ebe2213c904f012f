import { PROJECTED_SUBJECT_PREFIX } from '@cds/read-models';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ResponseCache } from './response-cache.ts';

export interface Invalidation {
  /** Resolves once the subscription is registered with the server. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Drops cached responses of a commodity when the projector announces new data for it on
 * `cds.projected.<projection>.<commodity_id>` (core NATS). After a reconnect the whole cache is
 * dropped, as announcements sent while disconnected are lost (the TTL bounds staleness anyway).
 */
export function subscribeInvalidations(
  nc: NatsConnection,
  cache: ResponseCache,
  log?: { info(msg: string): void },
): Invalidation {
  const sub = nc.subscribe(`${PROJECTED_SUBJECT_PREFIX}.>`);
  const prefixTokens = PROJECTED_SUBJECT_PREFIX.split('.').length;
  const messages = (async () => {
    for await (const msg of sub) {
      const commodityId = msg.subject.split('.')[prefixTokens + 1];
      if (commodityId !== undefined && commodityId !== '') cache.invalidate(commodityId);
    }
  })();
  const statuses = (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'reconnect') {
        log?.info('NATS reconnected: dropping the response cache');
        cache.clear();
      }
    }
  })();
  return {
    ready: nc.flush(),
    async close() {
      sub.unsubscribe();
      await messages.catch(() => undefined);
      void statuses.catch(() => undefined);
    },
  };
}
