import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidParameterError } from './errors.ts';
import { parseBody } from './params.ts';

const Body = z.strictObject({ plan: z.enum(['free', 'pro']), label: z.string().max(3).optional() });

function refusal(value: unknown): { param: string | undefined; message: string } {
  try {
    parseBody(Body, value, 'body');
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidParameterError);
    const e = err as InvalidParameterError;
    return { param: e.param, message: e.message };
  }
  throw new Error('parsed');
}

describe('parseBody', () => {
  it('gives the parsed body', () => {
    expect(parseBody(Body, { plan: 'pro' }, 'body')).toEqual({ plan: 'pro' });
  });

  it('names the field of the first issue, an unknown field, or the body when there is none', () => {
    expect(refusal({ plan: 'gold' }).param).toBe('plan');
    expect(refusal({ plan: 'pro', label: 'toolong' }).message).toMatch(/^Invalid label: /);
    expect(refusal({ plan: 'pro', extra: 1 })).toEqual({
      param: 'extra',
      message: 'Unknown field extra in the request body.',
    });
    expect(refusal(undefined)).toEqual({ param: 'body', message: 'A JSON request body is required.' });
    expect(refusal('text').param).toBe('body');
  });
});
