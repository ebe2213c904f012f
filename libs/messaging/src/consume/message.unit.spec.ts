import { ROOT_CONTEXT } from '@opentelemetry/api';
import { describe, expect, it, vi } from 'vitest';
import { PoisonMessageError } from '../errors.ts';
import { fakeMsg } from './testing/fakes.ts';
import { decodePayload, schemaDecoder, tell, toPulled, type SafeParser } from './message.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const anything = (payload: unknown) => ({ value: payload });

describe('decodePayload', () => {
  it('parses nothing without a decode', () => {
    expect(decodePayload(bytes('not json {'), undefined)).toEqual({ value: undefined, poison: undefined });
  });

  it('decodes the JSON payload', () => {
    expect(decodePayload(bytes('{"n":1}'), anything)).toEqual({ value: { n: 1 }, poison: undefined });
  });

  it('calls a payload that is not JSON poison, with the parse error as cause', () => {
    const { value, poison } = decodePayload(bytes('not json {'), anything);
    expect(value).toBeUndefined();
    expect(poison).toBeInstanceOf(PoisonMessageError);
    expect(poison?.message).toBe('payload is not valid JSON');
    expect(poison?.cause).toBeInstanceOf(SyntaxError);
  });

  it('calls a payload decode rejects poison, with its reason', () => {
    const { value, poison } = decodePayload(bytes('{"n":1}'), () => ({ reason: 'schema: n: too small' }));
    expect(value).toBeUndefined();
    expect(poison?.message).toBe('schema: n: too small');
  });
});

describe('toPulled', () => {
  it('gives the handler the delivery, its decoded value, and a working() that extends its deadline', () => {
    const msg = fakeMsg(12, { n: 12 }, { pending: 3 });
    const working = vi.fn();
    const pulled = toPulled(msg, anything, working);
    expect(pulled).toMatchObject({
      subject: 'test.12',
      seq: 12,
      deliveryCount: 1,
      redelivered: false,
      pending: 3,
      storedAtMs: 1_700_000_000_012,
      data: msg.data,
      headers: undefined,
      value: { n: 12 },
      poison: undefined,
    });
    pulled.working();
    expect(working).toHaveBeenCalledWith(msg);
  });

  it('gives the root trace context to a message without headers, and parses nothing without decode', () => {
    const pulled = toPulled(fakeMsg(1, 'not json {'), undefined, () => undefined);
    expect(pulled.traceContext).toBe(ROOT_CONTEXT);
    expect(pulled.value).toBeUndefined();
    expect(pulled.poison).toBeUndefined();
  });
});

describe('schemaDecoder', () => {
  const schema = (result: ReturnType<SafeParser<number>['safeParse']>): SafeParser<number> => ({
    safeParse: () => result,
  });

  it('passes what the schema parses', () => {
    expect(schemaDecoder(schema({ success: true, data: 7 }))('7')).toEqual({ value: 7 });
  });

  it('names at most five issues by path ((event) for the root)', () => {
    const issues = [
      { path: [], message: 'expected object' },
      { path: ['a', 0, 'b'], message: 'required' },
      ...Array.from({ length: 5 }, (_, i) => ({ path: [`x${i}`], message: 'bad' })),
    ];
    expect(schemaDecoder(schema({ success: false, error: { issues } }))({})).toEqual({
      reason: 'schema: (event): expected object; a.0.b: required; x0: bad; x1: bad; x2: bad',
    });
  });
});

describe('tell', () => {
  it('swallows a failure to tell the server (closed connection)', () => {
    expect(() =>
      tell(() => {
        throw new Error('connection closed');
      }),
    ).not.toThrow();
  });
});
