import { DATASETS } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import { formatIncident, parseIncidentArgs, runIncidentCli } from './incident-cli.ts';
import { withUpdate } from './incidents.ts';

const [a, b] = DATASETS.map((d) => d.id);

describe('parseIncidentArgs', () => {
  it('reads open with its title, message, datasets and state (investigating unless told)', () => {
    expect(
      parseIncidentArgs(['open', '--title', ' Late prices ', '--message', 'Looking', '--datasets', `${a}, ${b},${a}`]),
    ).toEqual({
      command: 'open',
      opening: { title: 'Late prices', message: 'Looking', datasets: [a, b], state: 'investigating' },
      json: false,
    });
    expect(
      parseIncidentArgs(['open', '--title', 'T', '--message', 'M', '--state', 'identified', '--json']),
    ).toMatchObject({
      opening: { datasets: [], state: 'identified' },
      json: true,
    });
  });

  it('reads update and resolve with the id after the command, and list with --all', () => {
    expect(parseIncidentArgs(['update', 'inc_0a1b', '--state', 'monitoring', '--message', 'A fix is out'])).toEqual({
      command: 'update',
      id: 'inc_0a1b',
      state: 'monitoring',
      message: 'A fix is out',
      json: false,
    });
    expect(parseIncidentArgs(['update', 'inc_0a1b', '--message', 'Still'])).not.toHaveProperty('state');
    expect(parseIncidentArgs(['resolve', 'inc_0a1b', '--message', 'Done', '--nats-url', 'nats://h:4222'])).toEqual({
      command: 'resolve',
      id: 'inc_0a1b',
      message: 'Done',
      json: false,
      natsUrl: 'nats://h:4222',
    });
    expect(parseIncidentArgs(['list'])).toEqual({ command: 'list', all: false, json: false });
    expect(parseIncidentArgs(['list', '--all'])).toMatchObject({ all: true });
    expect(parseIncidentArgs(['--help'])).toEqual({ command: 'help' });
  });

  it('refuses what it cannot write, naming it', () => {
    const open = ['open', '--title', 'T'];
    expect(() => parseIncidentArgs([...open, '--message', 'M', '--datasets', `${a},no_such_set`])).toThrow(
      /^unknown dataset no_such_set: the datasets are /,
    );
    expect(() => parseIncidentArgs([...open, '--message', '  '])).toThrow('--message is empty');
    expect(() => parseIncidentArgs(open)).toThrow('--message is required');
    expect(() => parseIncidentArgs([...open, '--message', 'x'.repeat(2_001)])).toThrow(/longer than 2000/);
    expect(() => parseIncidentArgs(['open', '--message', 'M'])).toThrow('--title is required');
    expect(() => parseIncidentArgs([...open, '--message', 'M', '--state', 'resolved'])).toThrow(
      /use: incident resolve/,
    );
    expect(() => parseIncidentArgs(['update', 'inc_1', '--message', 'M', '--state', 'fixed'])).toThrow(
      '--state must be one of investigating, identified, monitoring, not fixed',
    );
    expect(() => parseIncidentArgs(['update', '--message', 'M'])).toThrow(/needs the incident's id/);
    expect(() => parseIncidentArgs(['resolve', 'inc_1', '--message', 'M', '--state', 'monitoring'])).toThrow(
      'incident resolve takes no --state',
    );
    expect(() => parseIncidentArgs(['list', 'extra'])).toThrow('unexpected argument extra');
    expect(() => parseIncidentArgs(['close'])).toThrow('unknown incident command close');
    expect(() => parseIncidentArgs([])).toThrow(/missing incident command/);
  });
});

describe('runIncidentCli before NATS', () => {
  const io = () => {
    const out = { stdout: '', stderr: '' };
    return {
      out,
      io: {
        stdout: { write: (t: string) => (out.stdout += t) },
        stderr: { write: (t: string) => (out.stderr += t) },
        env: { CDS_LOCAL_ENV: '/nonexistent/local.json' } as Record<string, string | undefined>,
      },
    };
  };

  it('exits 2 with the usage on bad input, 1 without a NATS address', async () => {
    const bad = io();
    expect(await runIncidentCli(['open', '--title', 'T', '--message', ''], bad.io)).toBe(2);
    expect(bad.out.stderr).toMatch(/^error: --message is empty\n\nUsage: npm run admin -- incident/);
    const none = io();
    expect(await runIncidentCli(['list'], none.io)).toBe(1);
    expect(none.out.stderr).toMatch(/no NATS address: pass --nats-url or set NATS_URL/);
  });
});

describe('formatIncident', () => {
  it('prints its line and its latest update', () => {
    const opened = {
      id: 'inc_0123456789',
      title: 'Prices late',
      state: 'investigating' as const,
      datasets: [],
      started_at: '2026-12-01T10:00:00.000Z',
      updates: [{ at: '2026-12-01T10:00:00.000Z', state: 'investigating' as const, message: 'Looking' }],
    };
    const resolved = withUpdate(opened, 'resolved', 'Fixed', new Date('2026-12-01T12:00:00Z'));
    expect(resolved).toMatchObject({ state: 'resolved', resolved_at: '2026-12-01T12:00:00.000Z' });
    expect(resolved.updates).toHaveLength(2);
    expect(formatIncident(resolved)).toBe(
      'inc_0123456789  resolved  started 2026-12-01T10:00:00.000Z  resolved 2026-12-01T12:00:00.000Z  the whole service  Prices late\n' +
        '  2026-12-01T12:00:00.000Z resolved: Fixed',
    );
  });
});
