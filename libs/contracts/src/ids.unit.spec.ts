import { describe, expect, it } from 'vitest';
import { KeyId } from './events.ts';
import { NotificationId, WebhookEndpointId } from './notifications.ts';

// The ids the dashboard takes from its routes' parameters: anything else is answered as unknown.
describe('ids in dashboard addresses', () => {
  it.each([
    [
      WebhookEndpointId,
      'whk_0123456789abcdef01234567',
      ['whk_0123456789ABCDEF01234567', 'whk_0123', 'evt_0123456789abcdef01234567'],
    ],
    [
      NotificationId,
      `evt_${'0a'.repeat(16)}`,
      [`evt_${'0A'.repeat(16)}`, `evt_${'0a'.repeat(15)}`, `whk_${'0a'.repeat(16)}`],
    ],
    [KeyId, 'key_abcdefgh12', ['key_short', 'key_ABCDEFGH12', 'acc_abcdefgh12']],
  ])('accepts %#: only its own shape', (schema, good, bad) => {
    expect(schema.safeParse(good).success).toBe(true);
    for (const value of [...bad, `${good}/`, ` ${good}`, '']) expect(schema.safeParse(value).success).toBe(false);
  });
});
