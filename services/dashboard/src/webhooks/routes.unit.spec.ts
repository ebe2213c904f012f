import type { WebhookEndpoint } from '@cds/webhooks';
import { describe, expect, it } from 'vitest';
import { rotatedNotice } from './routes.ts';

const endpoint: WebhookEndpoint = {
  id: 'whk_000000000000000000000001',
  account_id: 'acc_1',
  url: 'https://hooks.example.com/cds',
  commodities: null,
  types: null,
  enabled: true,
  disabled_reason: null,
  contact_email: 'owner@example.com',
  secret_hint: 'NEW1',
  previous_secret_hint: 'OLD1',
  previous_secret_expires_at: new Date('2026-11-28T15:04:59.999Z'),
  created_at: new Date('2026-11-01T00:00:00Z'),
  updated_at: new Date('2026-11-27T15:05:00Z'),
  failing_since: null,
  last_success_at: null,
};

describe('the rotate action', () => {
  it('says until when the old secret stays valid, and that both sign until then', () => {
    expect(rotatedNotice(endpoint)).toBe(
      'Secret rotated. The old secret (…OLD1) stays valid until 2026-11-28 15:04 UTC: until then every delivery ' +
        'is signed with both (two v1= entries in CDS-Signature), so update your receiver before then; after it, ' +
        'only the new one signs.',
    );
    expect(rotatedNotice({ ...endpoint, previous_secret_hint: null, previous_secret_expires_at: null })).toBe(
      'Secret rotated.',
    );
  });
});
