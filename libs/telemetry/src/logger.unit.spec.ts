import { costRatio } from '@cds/http/testing';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger, isSecretParam, redactUrl, SECRET_QUERY_PARAMS } from './logger.ts';

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

  it('censors every secret parameter of the shared list, in any case, encoded or not', () => {
    expect(SECRET_QUERY_PARAMS).toEqual(['api_key', 'key', 'token', 'app_token', '$$app_token']);
    expect(redactUrl(`/dashboard/reset?token=${KEY}`)).toBe('/dashboard/reset?token=[REDACTED]');
    expect(redactUrl(`/dashboard/verify?next=%2Fkeys&TOKEN=${KEY}`)).toBe(
      '/dashboard/verify?next=%2Fkeys&TOKEN=[REDACTED]',
    );
    expect(redactUrl(`https://quickstats.nass.usda.gov/api/api_GET/?key=${KEY}&year=2024`)).toBe(
      'https://quickstats.nass.usda.gov/api/api_GET/?key=[REDACTED]&year=2024',
    );
    expect(redactUrl(`/resource/x.json?$$app_token=${KEY}&$limit=5`)).toBe(
      '/resource/x.json?$$app_token=[REDACTED]&$limit=5',
    );
    expect(redactUrl(`/resource/x.json?%24%24app_token=${KEY}`)).toBe('/resource/x.json?%24%24app_token=[REDACTED]');
    expect(redactUrl(`/r?App_Token=${KEY}`)).toBe('/r?App_Token=[REDACTED]');
    expect(redactUrl(`/r?%6Bey=${KEY}`)).toBe('/r?%6Bey=[REDACTED]');
    // Names that merely contain a secret's name are kept: only whole names match.
    expect(redactUrl('/x?keys=1&tokens=2&monkey=3&key_hint=4')).toBe('/x?keys=1&tokens=2&monkey=3&key_hint=4');
    expect(redactUrl(`/x?key=${KEY}`, '***')).toBe('/x?key=***');
    expect(isSecretParam('Api_Key')).toBe(true);
    expect(isSecretParam('%zz')).toBe(false);
  });

  it('costs time linear in the URL length, also for pathological URLs', () => {
    // A ratio, never a wall-clock bound: ten times the input costs about ten times as much (a
    // quadratic scan, as a name pattern that ran over '?' had, costs a hundred times as much).
    for (const unit of ['?', '&', ';', 'a=%20&', '?key']) {
      const short = `/x?token${unit.repeat(2_000 / unit.length)}`;
      const long = `/x?token${unit.repeat(20_000 / unit.length)}`;
      expect(
        costRatio((url) => redactUrl(url), short, long),
        unit,
      ).toBeLessThan(40);
    }
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
