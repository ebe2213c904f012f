import { describe, expect, it } from 'vitest';
import { natsAuthOptions } from './connection.ts';

describe('natsAuthOptions', () => {
  it('takes the user out of the URL (nats.js ignores it there) and gives it its own inbox prefix', () => {
    expect(natsAuthOptions('nats://gateway:p%40ss@nats:4222')).toEqual({
      servers: ['nats://nats:4222'],
      user: 'gateway',
      pass: 'p@ss',
      inboxPrefix: '_INBOX_gateway',
    });
  });

  it('splits a comma-separated cluster list; the first URL with a user names it', () => {
    expect(natsAuthOptions('nats://admin:pw@nats-0:4222, nats://nats-1:4222,nats://nats-2:4222')).toEqual({
      servers: ['nats://nats-0:4222', 'nats://nats-1:4222', 'nats://nats-2:4222'],
      user: 'admin',
      pass: 'pw',
      inboxPrefix: '_INBOX_admin',
    });
  });

  it('leaves a URL without credentials as it is, with the default inbox', () => {
    expect(natsAuthOptions(['nats://127.0.0.1:4222'])).toEqual({ servers: ['nats://127.0.0.1:4222'] });
  });
});
