import { describe, expect, it } from 'vitest';
import { smtpTransportOptions } from './mailer.ts';

const timeoutMs = 7_000;

describe('SMTP transport options', () => {
  it('requires STARTTLS for smtp:// (587 by default), so a relay or a MITM that does not upgrade gets nothing', () => {
    const options = smtpTransportOptions('smtp://mailer:p%40ss%3Aword@smtp.example.com', { timeoutMs });
    expect(options).toMatchObject({
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      requireTLS: true,
      tls: { minVersion: 'TLSv1.2', rejectUnauthorized: true },
      auth: { user: 'mailer', pass: 'p@ss:word' },
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    expect(options.ignoreTLS).toBeUndefined();
    expect(options.opportunisticTLS).toBeUndefined();
    expect(smtpTransportOptions('smtp://smtp.example.com:25', { timeoutMs })).toMatchObject({
      port: 25,
      requireTLS: true,
    });
    expect(smtpTransportOptions('smtp://10.0.0.25:2525', { timeoutMs }).requireTLS).toBe(true);
  });

  it('uses TLS from the first byte for smtps:// (465 by default)', () => {
    expect(smtpTransportOptions('smtps://u:p@smtp.example.com', { timeoutMs })).toMatchObject({
      host: 'smtp.example.com',
      port: 465,
      secure: true,
      requireTLS: false,
      tls: { rejectUnauthorized: true },
    });
  });

  it('exempts only a relay at a literal loopback address (nothing on the path to strip STARTTLS), not a name', () => {
    for (const url of ['smtp://u:p@127.0.0.1:2525', 'smtp://127.0.0.53:25', 'smtp://[::1]:2525']) {
      expect(smtpTransportOptions(url, { timeoutMs }).requireTLS, url).toBe(false);
    }
    expect(smtpTransportOptions('smtp://[::1]:2525', { timeoutMs }).host).toBe('::1');
    for (const url of [
      'smtp://localhost:2525',
      'smtp://127.0.0.1.nip.io:25',
      'smtp://2130706433:25',
      'smtp://[::ffff:127.0.0.1]:25',
    ]) {
      expect(smtpTransportOptions(url, { timeoutMs }).requireTLS, url).toBe(true);
    }
  });

  it('trusts the given CA certificates instead of the system roots (tests), and refuses other schemes', () => {
    expect(smtpTransportOptions('smtp://relay.test', { timeoutMs, ca: 'PEM' }).tls).toMatchObject({ ca: ['PEM'] });
    expect(smtpTransportOptions('smtp://relay.test', { timeoutMs }).tls).not.toHaveProperty('ca');
    expect(() => smtpTransportOptions('http://relay.test', { timeoutMs })).toThrow(/smtp:\/\/ or smtps:\/\//);
  });
});
