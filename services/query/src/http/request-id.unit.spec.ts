import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createRequestIdResolver } from './request-id.ts';

const resolve = createRequestIdResolver(() => 'req_fresh');
const withId = (id: string | undefined) => resolve({ headers: { 'x-request-id': id } } as unknown as IncomingMessage);

describe('forwarded request ids', () => {
  it('takes a well-formed id of at most 128 characters, else makes a fresh one', () => {
    expect(withId('req_0123456789abcdef0123')).toBe('req_0123456789abcdef0123');
    expect(withId('a'.repeat(128))).toBe('a'.repeat(128));
    expect(withId('a'.repeat(129))).toBe('req_fresh');
    expect(withId('a'.repeat(8000))).toBe('req_fresh');
    expect(withId('req "x"')).toBe('req_fresh');
    expect(withId('')).toBe('req_fresh');
    expect(withId(undefined)).toBe('req_fresh');
  });
});
