import { MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError, isDatabaseUnavailable, mapStoreError } from './errors.ts';

function socketError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

describe('isDatabaseUnavailable', () => {
  it('counts a raw socket error the driver let through (EPIPE on a socket the server closed) as unavailable', () => {
    // As seen from the driver's Connection.writeCommand while the MongoDB API server was killed.
    const epipe = socketError('EPIPE', 'This socket has been ended by the other party');
    expect(isDatabaseUnavailable(epipe)).toBe(true);
    expect(mapStoreError(epipe)).toBeInstanceOf(StoreUnavailableError);
    expect(isDatabaseUnavailable(socketError('ECONNRESET', 'read ECONNRESET'))).toBe(true);
  });

  it('leaves other errors alone: file errors, plain errors, a bad query', () => {
    expect(isDatabaseUnavailable(socketError('ENOENT', 'no such file'))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(new MongoServerError({ message: 'bad query', code: 2 }))).toBe(false);
    expect(isDatabaseUnavailable({ code: 'EPIPE' })).toBe(false);
    const plain = new Error('boom');
    expect(mapStoreError(plain)).toBe(plain);
  });
});
