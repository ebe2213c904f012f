// The dashboard refuses the admin token and the session secret the local development overlay once
// published (k8s/overlays/local now generates random ones), whatever NODE_ENV says.
import { ConfigError, loadConfig } from '@cds/config';
import { describe, expect, it } from 'vitest';
import { DashboardConfig, KNOWN_DEV_SECRETS } from './config.ts';

const good = {
  MONGODB_URL: 'mongodb://127.0.0.1:27017',
  REDIS_URL: 'redis://127.0.0.1:6379',
  ADMIN_TOKEN: 'b'.repeat(32),
  SESSION_SECRET: 'c'.repeat(32),
};

describe('DashboardConfig secrets', () => {
  it('accepts random secrets', () => {
    const config = loadConfig(DashboardConfig, good);
    expect([config.ADMIN_TOKEN, config.SESSION_SECRET]).toEqual([good.ADMIN_TOKEN, good.SESSION_SECRET]);
  });

  it.each(Object.entries(KNOWN_DEV_SECRETS))('refuses the well-known %s in every environment', (name, value) => {
    for (const NODE_ENV of ['production', 'development', undefined]) {
      expect(() => loadConfig(DashboardConfig, { ...good, NODE_ENV, [name]: value })).toThrow(
        new RegExp(`${name}: is the well-known development value`),
      );
    }
  });

  it('names the two literals the overlay used to ship, and keeps the length checks', () => {
    expect(KNOWN_DEV_SECRETS).toEqual({
      ADMIN_TOKEN: 'local-dev-admin-token-change-me',
      SESSION_SECRET: 'local-dev-dashboard-session-secret-change-me',
    });
    expect(() => loadConfig(DashboardConfig, { ...good, SESSION_SECRET: 'x'.repeat(31) })).toThrow(ConfigError);
  });
});
