import { KEY_REVOCATION_NOTICES, type KeyEvent } from '@cds/contracts';
import { connectMessaging, encodeJson, type Messaging } from '@cds/messaging';
import { createLogger } from '@cds/telemetry';
import { startNats, waitUntil, type NatsHandle } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RevocationNotices, subscribeRevocationNotices } from './revocation-notices.ts';

let nats: NatsHandle;
let admin: Messaging;
let gateway: Messaging;
const logger = createLogger({ name: 't', level: 'silent' });

beforeAll(async () => {
  nats = await startNats();
  // As the system runs them (libs/testkit identities.ts): the admin API sends, the gateway hears.
  admin = await connectMessaging({ servers: nats.identities.admin, name: 'notices-spec-admin' });
  gateway = await connectMessaging({ servers: nats.identities.gateway, name: 'notices-spec-gateway' });
});
afterAll(async () => {
  await gateway.close();
  await admin.close();
  await nats.stop();
});

const revoked = (keyId: string): KeyEvent => ({
  id: `key.revoked:${keyId}`,
  type: 'key.revoked',
  version: 1,
  occurred_at: new Date().toISOString(),
  source: 'admin-api',
  data: { key_id: keyId, account_id: 'acc_00000001', key_hash: 'a'.repeat(64) },
});

describe('subscribeRevocationNotices', () => {
  it("refuses a key as soon as the admin API's notice arrives; a payload that is no key.revoked refuses nothing", async () => {
    const notices = new RevocationNotices({ nowMs: Date.now });
    const sub = subscribeRevocationNotices(gateway.nc, notices, logger);
    await sub.ready;
    admin.nc.publish(KEY_REVOCATION_NOTICES, 'not json');
    admin.nc.publish(KEY_REVOCATION_NOTICES, encodeJson({ ...revoked('key_00000002'), type: 'key.created' }));
    admin.nc.publish(KEY_REVOCATION_NOTICES, encodeJson(revoked('key_00000001')));
    await admin.nc.flush();
    await waitUntil(
      'notice heard',
      () => (notices.refuses('key_00000001') ? Promise.resolve() : Promise.reject(new Error('not yet'))),
      5_000,
    );
    expect(notices.size).toBe(1);
    expect(notices.refuses('key_00000002')).toBe(false);
    sub.close();
  });
});
