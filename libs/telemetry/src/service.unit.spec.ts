import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runService, type RunningService, type ServiceSettings } from './service.ts';

interface Harness {
  signals: EventEmitter;
  /** The exit code the service asked for, once it has. */
  exited: Promise<number>;
  exits: number[];
  /** Parsed log lines so far. */
  logs: () => { level: string; msg: string; [field: string]: unknown }[];
  run: Promise<void>;
}

function start(
  startFn: (s: RunningService<ServiceSettings>) => Promise<void> | void,
  settings: Partial<ServiceSettings> = {},
): Harness {
  const signals = new EventEmitter();
  const exits: number[] = [];
  let onExit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (onExit = resolve));
  let text = '';
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString('utf8');
      cb();
    },
  });
  const run = runService({
    name: 'svc',
    config: () => ({ LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: 1_000, ...settings }),
    start: startFn,
    signals,
    exit: (code) => {
      exits.push(code);
      onExit(code);
    },
    logDestination: out,
  });
  const logs = () =>
    text
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { level: string; msg: string; [field: string]: unknown });
  return { signals, exited, exits, logs, run };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('runService', () => {
  it('closes the registered pieces on SIGTERM, the last opened first, then exits with 0', async () => {
    const order: string[] = [];
    const h = start(({ onClose }) => {
      onClose('store', () => order.push('store'));
      onClose('messaging', async () => {
        await new Promise((r) => setTimeout(r, 5));
        order.push('messaging');
      });
      onClose('http server', () => order.push('http server'));
    });
    await h.run;
    expect(order).toEqual([]);

    h.signals.emit('SIGTERM', 'SIGTERM');
    expect(await h.exited).toBe(0);
    expect(order).toEqual(['http server', 'messaging', 'store']);
    expect(h.logs().map((l) => l.msg)).toContain('shutting down');
  });

  it('closes once when a second signal arrives while closing (SIGINT, then SIGTERM)', async () => {
    let closes = 0;
    let release: () => void = () => {};
    const h = start(({ onClose }) => {
      onClose('slow', () => {
        closes += 1;
        return new Promise<void>((r) => (release = r));
      });
    });
    await h.run;
    h.signals.emit('SIGINT', 'SIGINT');
    h.signals.emit('SIGTERM', 'SIGTERM');
    release();
    expect(await h.exited).toBe(0);
    expect(closes).toBe(1);
    expect(h.exits).toEqual([0]);
    expect(h.logs().map((l) => l.msg)).toContain('already shutting down');
  });

  it('exits with 1 when the close passes SHUTDOWN_TIMEOUT_MS, naming the step it waited for', async () => {
    vi.useFakeTimers();
    const closed: string[] = [];
    const h = start(
      ({ onClose }) => {
        onClose('store', () => closed.push('store'));
        onClose('hung consumer', () => new Promise(() => {}));
      },
      { SHUTDOWN_TIMEOUT_MS: 2_000 },
    );
    await h.run;
    h.signals.emit('SIGTERM', 'SIGTERM');
    await vi.advanceTimersByTimeAsync(1_999);
    expect(h.exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.exits).toEqual([1]);
    expect(closed).toEqual([]);
    const line = h.logs().find((l) => l.msg === 'shutdown deadline passed');
    expect(line).toMatchObject({ level: 'error', closing: 'hung consumer', timeoutMs: 2_000 });
  });

  it('exits with 1 when a close fails, after closing the other pieces', async () => {
    const closed: string[] = [];
    const h = start(({ onClose }) => {
      onClose('store', () => closed.push('store'));
      onClose('messaging', () => Promise.reject(new Error('drain failed')));
      onClose('http server', () => closed.push('http server'));
    });
    await h.run;
    h.signals.emit('SIGTERM', 'SIGTERM');
    expect(await h.exited).toBe(1);
    expect(closed).toEqual(['http server', 'store']);
    expect(h.logs().find((l) => l.msg === 'close failed')).toMatchObject({ level: 'error', closing: 'messaging' });
  });

  it('logs a failed start, closes what it had opened and exits with 1', async () => {
    const closed: string[] = [];
    const h = start(({ onClose }) => {
      onClose('messaging', () => closed.push('messaging'));
      throw new Error('stream CDS_KEYS not found');
    });
    await h.run;
    expect(await h.exited).toBe(1);
    expect(closed).toEqual(['messaging']);
    expect(h.logs().find((l) => l.msg === 'svc failed to start')).toMatchObject({ level: 'fatal' });
  });

  it('exits with 1 on a bad configuration, with its message on stderr', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const exits: number[] = [];
    const started = vi.fn();
    await runService({
      name: 'svc',
      config: () => {
        throw new Error('invalid configuration:\n  PORT: too big');
      },
      start: started,
      signals: new EventEmitter(),
      exit: (code) => exits.push(code),
    });
    expect(exits).toEqual([1]);
    expect(started).not.toHaveBeenCalled();
    expect(errors).toHaveBeenCalledWith('svc failed to start: invalid configuration:\n  PORT: too big');
    errors.mockRestore();
  });

  it('aborts its signal at shutdown, so a start waiting for a dependency stops waiting', async () => {
    let waiting: Promise<string> | undefined;
    const h = start(({ signal }) => {
      waiting = new Promise((resolve) => signal.addEventListener('abort', () => resolve('stopped waiting')));
    });
    await h.run;
    h.signals.emit('SIGTERM', 'SIGTERM');
    expect(await waiting).toBe('stopped waiting');
    expect(await h.exited).toBe(0);
  });

  it('fail() logs the failure as fatal and exits with 1 at once', async () => {
    let fail: RunningService<ServiceSettings>['fail'] = () => {};
    const h = start((s) => {
      fail = s.fail;
    });
    await h.run;
    fail(new Error('consumer deleted'), 'projection consumer failed', { projection: 'series' });
    expect(h.exits).toEqual([1]);
    expect(h.logs().find((l) => l.msg === 'projection consumer failed')).toMatchObject({
      level: 'fatal',
      projection: 'series',
    });
  });
});
