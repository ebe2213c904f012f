import { costRatio } from '@cds/http/testing';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { MAX_COOKIE_HEADER, parseCookieHeader, readRequestCookies } from './cookies.ts';
import { PageError } from './page-error.ts';

const KNOWN = new Set(['cds_session', 'cds_pre', 'cds_verify']);

/** Characters the parser looks at for `header` (its own count: deterministic, no clock). */
function stepsFor(header: string): number {
  const steps = { count: 0 };
  parseCookieHeader(header, KNOWN, steps);
  return steps.count;
}

describe('the Cookie header parser', () => {
  it("reads the dashboard's cookies, trims blanks and quotes, keeps the first of a repeated name", () => {
    expect(
      parseCookieHeader(' cds_session = abc ;other=1;cds_pre="q1";cds_session=second; cds_verify=', KNOWN),
    ).toEqual({ cds_session: 'abc', cds_pre: 'q1', cds_verify: '' });
    expect(parseCookieHeader('', KNOWN)).toEqual({});
    expect(parseCookieHeader(';;;=;cds_pre', KNOWN)).toEqual({});
    // No prototype tricks: unknown names, __proto__ included, are never copied.
    const parsed = parseCookieHeader('__proto__=x; constructor=y', KNOWN);
    expect(Object.keys(parsed)).toEqual([]);
    expect(parsed.constructor).toBeUndefined();
  });

  it('looks at each character a bounded number of times: ten times the input, ten times the steps', () => {
    const shapes = {
      'inner blanks': (n: number) => `cds_session=${' '.repeat(n)}x${' '.repeat(n)}`,
      'many pairs': (n: number) => Array.from({ length: n }, (_, i) => `c${i}=v`).join('; '),
      'no separators': (n: number) => 'a'.repeat(n),
      'only equals signs': (n: number) => '='.repeat(n),
      'only semicolons': (n: number) => ';'.repeat(n),
      'pairs without equals signs': (n: number) => 'a;'.repeat(n),
      'blanks around names': (n: number) => `${' '.repeat(n)}cds_pre${' '.repeat(n)}=${' '.repeat(n)}"`,
    };
    for (const [name, make] of Object.entries(shapes)) {
      const short = make(300);
      const long = make(3000);
      const ratio = stepsFor(long) / stepsFor(short);
      expect(ratio, name).toBeGreaterThan(8);
      expect(ratio, name).toBeLessThan(12);
      expect(stepsFor(long) / long.length, name).toBeLessThanOrEqual(3);
    }
  });

  it('costs about ten times the CPU for ten times the input (generous bounds, a ratio of two runs)', () => {
    const make = (n: number) => `${'x;'.repeat(n)}${'x=1;'.repeat(n)}cds_session=${' '.repeat(n)}v${' '.repeat(n)}`;
    const short = make(100);
    const long = make(1000);
    // Linear is 10; a quadratic parser would be near 100.
    expect(costRatio((h) => parseCookieHeader(h, KNOWN), short, long)).toBeLessThan(30);
  });

  it('refuses a Cookie header past 4 KiB with a 400 page before parsing it', () => {
    const request = (cookie: string) => ({ headers: { cookie }, cookies: {} }) as unknown as FastifyRequest;
    const ok = request(`cds_pre=${'a'.repeat(30)}; ${'z'.repeat(MAX_COOKIE_HEADER - 60)}`);
    readRequestCookies(ok);
    expect(ok.cookies.cds_pre).toBe('a'.repeat(30));
    const big = request(`cds_pre=abc; junk=${'x'.repeat(MAX_COOKIE_HEADER)}`);
    let thrown: unknown;
    try {
      readRequestCookies(big);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(PageError);
    expect((thrown as PageError).status).toBe(400);
    expect((thrown as PageError).message).toContain("Delete this site's cookies");
    expect(big.cookies).toEqual({});
  });
});
