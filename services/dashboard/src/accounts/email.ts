import { z } from 'zod';

/** An e-mail address as the forms accept it. */
export const Email = z.email().max(254);

/**
 * Country-code second levels under which names are registered (`example.co.uk`): without a public
 * suffix list, a domain under a two-letter top level whose second label is one of these keeps
 * three labels, every other domain two.
 */
const SECOND_LEVELS = new Set(['ac', 'co', 'com', 'edu', 'gov', 'ltd', 'me', 'ne', 'net', 'or', 'org', 'plc', 'sch']);

/**
 * The mail domain a sign-up is counted under: the address's domain, lower-cased, without a
 * trailing dot, cut to its registrable part, so `a.mail.example.com` and `example.com` share one
 * count (a catch-all domain gains nothing from sub-domains).
 */
export function mailDomainOf(email: string): string {
  const at = email.lastIndexOf('@');
  const domain = email
    .slice(at + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, '');
  const labels = domain.split('.');
  if (labels.length <= 2) return domain;
  const [second, top] = labels.slice(-2) as [string, string];
  const keep = top.length === 2 && SECOND_LEVELS.has(second) ? 3 : 2;
  return labels.slice(-keep).join('.');
}

/**
 * The mailbox an address reaches, for the per-address sign-up count: lower-cased, with a `+tag`
 * of the local part dropped (`ann+1@example.com` and `ann+2@example.com` are one mailbox).
 */
export function mailboxOf(email: string): string {
  const normalized = email.trim().toLowerCase();
  const at = normalized.lastIndexOf('@');
  const local = normalized.slice(0, at);
  const plus = local.indexOf('+');
  return `${plus > 0 ? local.slice(0, plus) : local}${normalized.slice(at)}`;
}
