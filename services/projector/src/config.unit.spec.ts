import { ConfigError, loadConfig } from '@cds/config';
import { describe, expect, it } from 'vitest';
import { ProjectorConfig } from './config.ts';

const loadProjectorConfig = (env: Record<string, string>) => loadConfig(ProjectorConfig, env);

describe('loadProjectorConfig', () => {
  it('gives every database operation a deadline and the watchdog a stall time by default', () => {
    const c = loadProjectorConfig({});
    expect(c.MONGODB_OPERATION_TIMEOUT_MS).toBe(20_000);
    expect(c.STALL_TIMEOUT_MS).toBe(60_000);
    expect(loadProjectorConfig({ STALL_TIMEOUT_MS: '90000' }).STALL_TIMEOUT_MS).toBe(90_000);
    // CDS_CHANGES replicas: the chart's JETSTREAM_REPLICAS.
    expect(c.JETSTREAM_REPLICAS).toBe(1);
    expect(loadProjectorConfig({ JETSTREAM_REPLICAS: '3' }).JETSTREAM_REPLICAS).toBe(3);
  });

  it('refuses a stall time that a slow but answering operation could reach', () => {
    const load = () => loadProjectorConfig({ MONGODB_OPERATION_TIMEOUT_MS: '30000', STALL_TIMEOUT_MS: '30000' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/STALL_TIMEOUT_MS: must be greater than MONGODB_OPERATION_TIMEOUT_MS/);
    expect(() => loadProjectorConfig({ STALL_TIMEOUT_MS: '0' })).toThrow(/STALL_TIMEOUT_MS/);
  });
});
