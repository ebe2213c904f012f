import { loadConfig } from '@cds/config';
import { describe, expect, it } from 'vitest';
import { NotifierConfig } from './config.ts';

const loadNotifierConfig = (env: Record<string, string>) => loadConfig(NotifierConfig, env);

describe('notifier configuration', () => {
  it('has the documented defaults', () => {
    expect(loadNotifierConfig({})).toMatchObject({
      PORT: 8085,
      WEBHOOKS_DB: 'cds_webhooks',
      PUBLIC_API_ORIGIN: 'http://localhost:8080',
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_MAX_RESPONSE_BYTES: 65_536,
      WEBHOOK_RETRY_BASE_MS: 30_000,
      WEBHOOK_RETRY_MAX_MS: 3_600_000,
      WEBHOOK_RETRY_FOR_MS: 86_400_000,
      WEBHOOK_DISABLE_AFTER_MS: 259_200_000,
      WEBHOOK_CONCURRENCY: 16,
      WEBHOOK_ACCOUNT_CONCURRENCY: 4,
      WEBHOOK_POLL_MS: 1_000,
      WEBHOOK_ALLOW_PRIVATE: [],
    });
  });

  it('parses the exemption list and names every bad variable', () => {
    expect(
      loadNotifierConfig({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1:8443, localhost:9000,[::1]:443' }).WEBHOOK_ALLOW_PRIVATE,
    ).toEqual(['127.0.0.1:8443', 'localhost:9000', '[::1]:443']);
    let message = '';
    try {
      loadNotifierConfig({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1', WEBHOOK_TIMEOUT_MS: '0', PUBLIC_API_ORIGIN: 'ftp://x' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/WEBHOOK_ALLOW_PRIVATE\.0: each entry must be host:port/);
    expect(message).toMatch(/WEBHOOK_TIMEOUT_MS: /);
    expect(message).toMatch(/PUBLIC_API_ORIGIN: must be a URL with scheme http: or https:/);
    expect(() => loadNotifierConfig({ WEBHOOK_RETRY_BASE_MS: '5000', WEBHOOK_RETRY_MAX_MS: '1000' })).toThrow(
      /WEBHOOK_RETRY_MAX_MS: must be at least WEBHOOK_RETRY_BASE_MS/,
    );
  });
});
