import { INCIDENTS_BUCKET, DATASETS, Incident } from '@cds/contracts';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { startCliSandbox, type CliSandbox } from '@cds/testkit';
import { Kvm } from '@nats-io/kv';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIncidentCli } from './incident-cli.ts';

// `npm run admin -- incident …` against a real NATS server with the chart's users: the admin's
// user writes the incidents (libs/testkit identities.ts), the data publisher's may not.
const here = dirname(fileURLToPath(import.meta.url));
const adminCli = join(here, '..', 'cli.ts');
const [spot, wasde] = DATASETS.map((d) => d.id);

let sandbox: CliSandbox;
let messaging: Messaging;
let clock = new Date('2026-12-06T14:00:00Z');

/** Runs the CLI in this process (the spec's clock), as the admin's NATS user unless `env` says otherwise. */
async function incident(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runIncidentCli(
    args,
    {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      env: { NATS_URL: sandbox.nats.identities.admin, CDS_LOCAL_ENV: join(sandbox.dir, 'none.json'), ...env },
    },
    { clock: () => clock },
  );
  return { code, stdout, stderr };
}

/** The incident as stored in the bucket (the gateway's reading of it). */
async function stored(id: string): Promise<Incident> {
  const kv = await new Kvm(messaging.js).open(INCIDENTS_BUCKET);
  return Incident.parse((await kv.get(id))!.json());
}

beforeAll(async () => {
  sandbox = await startCliSandbox('incidents-cli-');
  messaging = await connectMessaging({ servers: sandbox.nats.url, name: 'incidents-int-spec' });
});

afterAll(async () => {
  await messaging?.close();
  await sandbox?.stop();
});

describe('npm run admin -- incident', () => {
  it('opens, updates, resolves and lists an incident in the bucket it creates', async () => {
    expect(await incident(['list'])).toEqual({ code: 0, stdout: 'no open incidents\n', stderr: '' });

    const opened = await incident([
      'open',
      '--title',
      'Prices arrive late',
      '--datasets',
      `${spot},${wasde}`,
      '--message',
      'We are looking into it.',
    ]);
    expect(opened.code).toBe(0);
    const id = opened.stdout.trim();
    expect(id).toMatch(/^inc_[0-9a-f]{20}$/);
    expect(await stored(id)).toEqual({
      id,
      title: 'Prices arrive late',
      state: 'investigating',
      datasets: [spot, wasde],
      started_at: '2026-12-06T14:00:00.000Z',
      updates: [{ at: '2026-12-06T14:00:00.000Z', state: 'investigating', message: 'We are looking into it.' }],
    });

    clock = new Date('2026-12-06T15:00:00Z');
    const updated = await incident(['update', id, '--state', 'monitoring', '--message', 'A fix is out.']);
    expect(updated).toEqual({ code: 0, stdout: `incident ${id}: monitoring (2 updates)\n`, stderr: '' });

    const other = (
      await incident(['open', '--title', 'Whole service slow', '--message', 'Slow answers.'])
    ).stdout.trim();
    const listed = await incident(['list', '--json']);
    expect((JSON.parse(listed.stdout) as Incident[]).map((i) => [i.id, i.state])).toEqual([
      [other, 'investigating'],
      [id, 'monitoring'],
    ]);

    clock = new Date('2026-12-06T16:30:00Z');
    expect(await incident(['resolve', id, '--message', 'All caught up.'])).toEqual({
      code: 0,
      stdout: `incident ${id} resolved at 2026-12-06T16:30:00.000Z\n`,
      stderr: '',
    });
    const resolved = await stored(id);
    expect(resolved).toMatchObject({ state: 'resolved', resolved_at: '2026-12-06T16:30:00.000Z' });
    expect(resolved.updates.map((u) => [u.at, u.state, u.message])).toEqual([
      ['2026-12-06T14:00:00.000Z', 'investigating', 'We are looking into it.'],
      ['2026-12-06T15:00:00.000Z', 'monitoring', 'A fix is out.'],
      ['2026-12-06T16:30:00.000Z', 'resolved', 'All caught up.'],
    ]);

    // open ones by default, newest first; --all adds the resolved
    const open = await incident(['list']);
    expect(open.stdout).toContain(
      `${other}  investigating  started 2026-12-06T15:00:00.000Z  the whole service  Whole service slow`,
    );
    expect(open.stdout).not.toContain(id);
    const all = await incident(['list', '--all']);
    expect(
      all.stdout
        .split('\n')
        .filter((l) => l.startsWith('inc_'))
        .map((l) => l.slice(0, 24)),
    ).toEqual([other, id]);
    expect(all.stdout).toContain(
      `${id}  resolved  started 2026-12-06T14:00:00.000Z  resolved 2026-12-06T16:30:00.000Z  ${spot}, ${wasde}`,
    );
  });

  it('refuses an unknown incident, a resolved one changed again, an unknown dataset and an empty message with exit 2', async () => {
    const id = (await incident(['open', '--title', 'Short', '--message', 'Down.'])).stdout.trim();
    await incident(['resolve', id, '--message', 'Up.']);
    const before = await stored(id);

    const again = await incident(['resolve', id, '--message', 'Up again.']);
    expect(again).toMatchObject({ code: 2, stdout: '' });
    expect(again.stderr).toBe(`error: incident ${id} is resolved already (${before.resolved_at!}): open a new one\n`);
    expect((await incident(['update', id, '--message', 'More.'])).code).toBe(2);
    expect(await stored(id)).toEqual(before);

    const unknown = await incident(['update', 'inc_00000000000000000000', '--message', 'Hello']);
    expect(unknown).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown incident inc_00000000000000000000 (see: incident list --all)\n',
    });
    expect((await incident(['resolve', 'not-an-id', '--message', 'x'])).stderr).toMatch(/unknown incident not-an-id/);

    const dataset = await incident(['open', '--title', 'T', '--message', 'M', '--datasets', 'eia_nothing']);
    expect(dataset.code).toBe(2);
    expect(dataset.stderr).toMatch(/^error: unknown dataset eia_nothing: the datasets are /);
    expect((await incident(['update', id, '--message', ''])).stderr).toMatch(/^error: --message is empty/);
  });

  it("exits 1 naming NATS when the user may not write incidents (the data publisher's) or NATS is not there", async () => {
    const refused = await incident(['open', '--title', 'T', '--message', 'M'], {
      NATS_URL: sandbox.nats.identities.ingest,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: incident open failed: .*(permission|Permission)/);
    const down = await incident(['list'], { NATS_URL: 'nats://127.0.0.1:1' });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^error: cannot reach NATS at nats:\/\/127\.0\.0\.1:1/);
  });

  it('runs as `npm run admin -- incident` does, with the address `npm start` leaves in .cds/local.json', async () => {
    const local = join(sandbox.dir, 'local.json');
    const url = 'http://127.0.0.1:1';
    await writeFile(
      local,
      JSON.stringify({
        natsUrl: sandbox.nats.identities.ingest,
        adminNatsUrl: sandbox.nats.identities.admin,
        mongoUrl: 'mongodb://127.0.0.1:1',
        redisUrl: 'redis://127.0.0.1:1',
        adminUrl: url,
        adminToken: 'unused-token-0123456789',
        gatewayUrl: url,
      }),
    );
    const run = await sandbox.run(adminCli, ['incident', 'open', '--title', 'From the CLI', '--message', 'Hello.'], {
      CDS_LOCAL_ENV: local,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(await stored(run.stdout.trim())).toMatchObject({ title: 'From the CLI', state: 'investigating' });
  });
});
