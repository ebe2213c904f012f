import { linkIn, type SmtpListener } from '@cds/dashboard/testing';
import type { Page } from 'playwright-core';

// The dashboard flows several browser suites go through, by the labels a user reads.

/** Signs up with `email` and `password` and confirms the address from the mail (not logged in after). */
export async function signUp(page: Page, dash: string, smtp: SmtpListener, email: string, password: string) {
  await page.goto(`${dash}/signup`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
  await page.goto(linkIn(await smtp.waitFor(email, /Confirm your e-mail/), 'verify'));
  await page.getByRole('button', { name: 'Confirm my e-mail address' }).click();
  await page.getByRole('heading', { name: 'Your e-mail is confirmed' }).waitFor();
}

/** Submits the log-in form; the caller waits for what it expects (the keys page, an error). */
export async function logIn(page: Page, dash: string, email: string, password: string): Promise<void> {
  await page.goto(`${dash}/login`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/**
 * Asks for a reset link from the log-in page and opens it from the mail: the page is left on the
 * new-password form, for the caller to fill (and to screenshot).
 */
export async function openPasswordReset(page: Page, dash: string, smtp: SmtpListener, email: string): Promise<void> {
  await page.goto(`${dash}/login`);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  const since = smtp.mails.length;
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
  await page.goto(linkIn(await smtp.waitFor(email, /Reset your password/, { since }), 'reset'));
}
