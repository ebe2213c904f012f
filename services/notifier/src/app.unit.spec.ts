import { createLogger } from '@cds/telemetry';
import { describe, expect, it } from 'vitest';
import { buildApp, type AppDeps } from './app.ts';

const deps = (over: Partial<AppDeps> = {}): AppDeps => ({
  logger: createLogger({ name: 'notifier-app', level: 'silent' }),
  metrics: { render: () => Promise.resolve('cds_notifier_in_flight 0\n') },
  natsConnected: () => true,
  mongoPing: () => Promise.resolve(true),
  intakeRunning: () => true,
  deliveryHealthy: () => true,
  intakeStall: () => undefined,
  ...over,
});

describe('notifier probes', () => {
  it('is ready only with NATS, MongoDB, the intake and the delivery loop', async () => {
    const ok = buildApp(deps());
    expect((await ok.inject('/readyz')).json()).toEqual({
      status: 'ready',
      nats: true,
      mongo: true,
      intake: true,
      delivery: true,
    });
    const down = buildApp(deps({ mongoPing: () => Promise.reject(new Error('down')), intakeRunning: () => false }));
    const res = await down.inject('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'not_ready', mongo: false, intake: false });
  });

  it('stays live through a stall being recovered and fails when its recovery failed', async () => {
    expect((await buildApp(deps()).inject('/healthz')).statusCode).toBe(200);
    const recovering = buildApp(deps({ intakeStall: () => ({ sinceMs: 0, recoveryFailed: false }) }));
    expect((await recovering.inject('/healthz')).statusCode).toBe(200);
    const stuck = buildApp(deps({ intakeStall: () => ({ sinceMs: 0, recoveryFailed: true }) }));
    const res = await stuck.inject('/healthz');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'stalled', since: '1970-01-01T00:00:00.000Z' });
    expect((await stuck.inject('/metrics')).body).toContain('cds_notifier_in_flight');
  });
});
