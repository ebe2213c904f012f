import { describe, expect, it } from 'vitest';
import { mailboxOf, mailDomainOf } from './email.ts';

describe('what a sign-up is counted under', () => {
  it('counts a domain by its registrable part, lower-cased, sub-domains and a trailing dot folded in', () => {
    expect(mailDomainOf('ann@Example.COM')).toBe('example.com');
    expect(mailDomainOf('ann@mail.a.example.com')).toBe('example.com');
    expect(mailDomainOf('ann@x.example.com.')).toBe('example.com');
    expect(mailDomainOf('ann@host.example.co.uk')).toBe('example.co.uk');
    expect(mailDomainOf('ann@a.b.example.com.au')).toBe('example.com.au');
    expect(mailDomainOf('ann@mail.example.de')).toBe('example.de');
    expect(mailDomainOf('ann@localhost')).toBe('localhost');
  });
  it('counts a mailbox without its plus tag', () => {
    expect(mailboxOf('Ann+News@Example.com')).toBe('ann@example.com');
    expect(mailboxOf('ann+1+2@example.com')).toBe('ann@example.com');
    expect(mailboxOf('+x@example.com')).toBe('+x@example.com');
    expect(mailboxOf('ann@example.com')).toBe('ann@example.com');
  });
});
