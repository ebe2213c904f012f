import { SYNC_BUCKET, type SourceSyncStatus } from '@cds/contracts';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { createLogger } from '@cds/telemetry';
import { startNats, waitUntil, type NatsHandle } from '@cds/testkit';
import { Kvm, type KV } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatusBoard } from './status-document.ts';
import { followSyncState } from './sync-state.ts';

// The bucket has a fixed name, so this file runs its own NATS server.
let nats: NatsHandle;
let messaging: Messaging;
/** The follower reads as the gateway's NATS user (libs/testkit identities.ts): its permissions suffice. */
let gateway: Messaging;
const logger = createLogger({ name: 't', level: 'silent' });

beforeAll(async () => {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'sync-state-spec' });
  gateway = await connectMessaging({ servers: nats.identities.gateway, name: 'sync-state-spec-gateway' });
});
afterAll(async () => {
  await gateway.close();
  await messaging.close();
  await nats.stop();
});

const status = (over: Partial<SourceSyncStatus> = {}): SourceSyncStatus => ({
  source: 'cftc',
  last_success_at: '2026-11-20T20:40:00.000Z',
  newest_data_date: '2026-11-17',
  last_run_at: '2026-11-20T20:35:00.000Z',
  ...over,
});

const follow = () => followSyncState({ nc: gateway.nc, js: gateway.js, jsm: gateway.jsm, logger, replicas: 1 });

describe('the gateway follows the sync state bucket', () => {
  it('creates the bucket when no sync ran yet, then picks up every change live', async () => {
    const follower = await follow();
    const board = createStatusBoard(follower, { demo: false });
    try {
      // Created with ingest's settings (one value per key), so ingest's own create binds to it.
      const kv: KV = await new Kvm(messaging.js).create(SYNC_BUCKET, { replicas: 1, history: 1 });
      expect(follower.get('cftc')).toBeUndefined();
      expect(board.document(Date.UTC(2026, 10, 24)).sources[0]).toMatchObject({ last_success_at: null, late: true });

      await kv.put('cftc', JSON.stringify(status()));
      // A cursor key (same bucket) and a value failing its schema change nothing.
      await kv.put('cursor.cftc.067651', JSON.stringify({ newest_date: '2026-11-17', seen: {}, updated_at: 'x' }));
      await waitUntil(
        'cftc status applied',
        () => Promise.resolve(expect(follower.get('cftc')).toEqual(status())),
        5_000,
      );
      expect(board.document(Date.UTC(2026, 10, 24)).sources[0]).toMatchObject({
        last_success_at: '2026-11-20T20:40:00.000Z',
        newest_data_date: '2026-11-17',
        late: false,
      });

      await kv.put('eia', '{"source":"eia","last_success_at":42}');
      await kv.put('cftc', JSON.stringify(status({ last_run_at: '2026-11-24T11:00:00.000Z', last_error: 'boom' })));
      await waitUntil(
        'failed run applied',
        () => Promise.resolve(expect(follower.get('cftc')?.last_error).toBe('boom')),
        5_000,
      );
      expect(follower.get('eia')).toBeUndefined();
      expect(board.document(Date.UTC(2026, 10, 24)).sources[0]).toMatchObject({ last_run_failed: true });

      await kv.delete('cftc');
      await waitUntil('delete applied', () => Promise.resolve(expect(follower.get('cftc')).toBeUndefined()), 5_000);
    } finally {
      await follower.stop();
    }
  });

  it('replays what is stored at start and keeps following across a NATS restart', async () => {
    const kv = await new Kvm(messaging.js).create(SYNC_BUCKET, { replicas: 1, history: 1 });
    await kv.put('nass', JSON.stringify(status({ source: 'nass', newest_data_date: '2026-09-01' })));
    const follower = await follow();
    try {
      await waitUntil(
        'replayed',
        () => Promise.resolve(expect(follower.get('nass')?.newest_data_date).toBe('2026-09-01')),
        5_000,
      );
      await nats.restart();
      // The client reconnects on its own; JetStream answers again a moment after the server is up.
      await waitUntil(
        'put after the restart',
        async () => {
          await kv.put('nass', JSON.stringify(status({ source: 'nass', newest_data_date: '2026-12-31' })));
        },
        20_000,
      );
      await waitUntil(
        'followed after the restart',
        () => Promise.resolve(expect(follower.get('nass')?.newest_data_date).toBe('2026-12-31')),
        20_000,
      );
    } finally {
      await follower.stop();
    }
  });
});
