import Fastify from 'fastify';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { lazyChildLoggerFactory } from './lazy-child-logger.ts';

describe('lazyChildLoggerFactory', () => {
  it('makes no child for a request that does not log, and logs with the request id when it does', async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const app = Fastify({
      loggerInstance: pino({ level: 'info' }, stream),
      childLoggerFactory: lazyChildLoggerFactory,
      disableRequestLogging: true,
      genReqId: () => 'req_fixed01',
    });
    const materialized: boolean[] = [];
    app.addHook('onResponse', (request, _reply, done) => {
      materialized.push((request.log as unknown as { materialized: boolean }).materialized);
      done();
    });
    app.get('/quiet', () => ({ ok: true }));
    app.get('/loud', (request) => {
      request.log.warn({ n: 1 }, 'something to say');
      request.log.debug('below the level');
      return { ok: true, level: request.log.level };
    });
    expect((await app.inject('/quiet')).statusCode).toBe(200);
    const loud = await app.inject('/loud');
    expect(loud.json()).toEqual({ ok: true, level: 'info' });
    expect(materialized).toEqual([false, true]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, reqId: 'req_fixed01', n: 1, msg: 'something to say' });
    await app.close();
  });
});
