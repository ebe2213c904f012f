import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getTestInfra, startSystem, uniqueName } from './index.ts';

/** The services (`services/<name>/src/main.ts`) this process started that still run (Linux: /proc). */
function runningServices(): string[] {
  const names: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // after the command in parentheses: the state, then the parent's pid
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== process.pid || state === 'Z') continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      const service = /services\/(\w+)\/src\/main\.ts/.exec(command)?.[1];
      if (service !== undefined) names.push(service);
    } catch {
      // the process ended while it was read
    }
  }
  return names.sort();
}

describe('startSystem with the accounts service beside the others (accountsBeside)', () => {
  it('answers once every service is ready, and its stop leaves no service running', async () => {
    const infra = getTestInfra();
    const before = runningServices();
    let adminReady = false;
    const system = await startSystem({
      identities: infra.identities,
      mongoUrl: infra.mongoUrl,
      mongoDb: uniqueName('system_beside'),
      accountsBeside: true,
      onAdminReady: () => (adminReady = true),
      env: { LOG_LEVEL: 'warn' },
    });
    try {
      expect(adminReady).toBe(true);
      expect(runningServices()).toEqual([...before, 'accounts', 'gateway', 'projector', 'query'].sort());
      for (const svc of [system.admin, ...system.gateways, system.projector, system.query])
        expect((await fetch(`${svc.url}/readyz`)).status, svc.name).toBe(200);
    } finally {
      await system.stop();
    }
    expect(runningServices()).toEqual(before);
  });

  it('fails with the accounts service’s output when it cannot start, and stops the services started beside it', async () => {
    const infra = getTestInfra();
    const before = runningServices();
    await expect(
      startSystem({
        identities: infra.identities,
        mongoUrl: infra.mongoUrl,
        mongoDb: uniqueName('system_beside'),
        accountsBeside: true,
        // refused by the accounts service's configuration: it exits at once
        serviceEnv: { accounts: { ADMIN_TOKEN: 'too short' } },
        env: { LOG_LEVEL: 'warn' },
      }),
    ).rejects.toThrow(/accounts exited before it was ready[\s\S]*ADMIN_TOKEN/);
    expect(runningServices()).toEqual(before);
  });
});
