import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from './logger.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      cb();
    },
  });
  return { lines, stream };
}

const KEY = '0123456789abcdef0123456789abcdef01234567';

describe('redactUrl', () => {
  it('censors every api_key value and keeps the rest', () => {
    expect(redactUrl(`/api/v1/commodities?api_key=${KEY}&page=2`)).toBe(
      '/api/v1/commodities?api_key=[REDACTED]&page=2',
    );
    expect(redactUrl(`/x?page=1&API_KEY=${KEY}#f`)).toBe('/x?page=1&API_KEY=[REDACTED]#f');
    expect(redactUrl(`/x?api_key=a&api_key=b`)).toBe('/x?api_key=[REDACTED]&api_key=[REDACTED]');
    expect(redactUrl('/x?my_api_key_hint=1')).toBe('/x?my_api_key_hint=1');
    expect(redactUrl(`/x?api%5Fkey=${KEY}&a=1`)).toBe('/x?api%5Fkey=[REDACTED]&a=1');
    expect(redactUrl(`/x?a=%20&%61pi_key=${KEY}`)).toBe('/x?a=%20&%61pi_key=[REDACTED]');
    expect(redactUrl('/x?a=%zz&api%zzkey=1')).toBe('/x?a=%zz&api%zzkey=1');
    expect(redactUrl('/api/v1/commodities')).toBe('/api/v1/commodities');
  });
});

describe('createLogger', () => {
  it('never writes the key from the Authorization header or the api_key query value', async () => {
    const { lines, stream } = capture();
    const app = Fastify({ loggerInstance: createLogger({ name: 'test', level: 'info', destination: stream }) });
    app.get('/api/v1/commodities', (req) => {
      req.log.info({ headers: req.headers, query: req.query }, 'handler saw');
      return { ok: true };
    });
    await app.inject({ url: `/api/v1/commodities?api_key=${KEY}`, headers: { authorization: `Bearer ${KEY}` } });
    await app.close();
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(all).not.toContain(KEY);
    expect(all).toContain('[REDACTED]');
    const first = JSON.parse(lines[0]!);
    expect(first).toMatchObject({
      service: 'test',
      level: 'info',
      req: { method: 'GET', url: '/api/v1/commodities?api_key=[REDACTED]' },
    });
    expect(first.reqId).toBeDefined();
  });
  it('censors key-like fields in logged objects', () => {
    const { lines, stream } = capture();
    const log = createLogger({ name: 't', destination: stream });
    log.info({ key: KEY, nested: { api_key: KEY, token: 'admin-secret' } }, 'x');
    expect(lines.join('')).not.toContain(KEY);
    expect(lines.join('')).not.toContain('admin-secret');
  });
});
