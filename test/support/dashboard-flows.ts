import { linkIn, type SmtpListener } from '@cds/dashboard/testing';
import type { Page } from 'playwright-core';

// The dashboard flows several browser suites go through, by the labels a user reads.

/**
 * Submits the sign-up form. In a burst the form carries a proof of work that the page's script
 * does before the form goes (the click waits for it); when the server asks for one only on
 * submission (a busy mail domain), the form comes back with one and the password is entered again.
 */
export async function submitSignUp(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign up' }).click();
  const inbox = page.getByRole('heading', { name: 'Check your inbox' });
  const asked = page.getByText('so this form asks your browser for a short check first');
  await inbox.or(asked).waitFor();
  if (await asked.isVisible()) {
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await inbox.waitFor();
  }
}

/**
 * Opens a mailed link as a user does: the dashboard takes the token off the URL at once (a cookie,
 * then a redirect), so the page the browser shows has none in its address.
 */
export async function openMailLink(page: Page, link: string): Promise<void> {
  await page.goto(link);
  if (new URL(page.url()).search.includes('token')) throw new Error(`the token stayed in the URL: ${page.url()}`);
}

/** Signs up with `email` and `password` and confirms the address from the mail (not logged in after). */
export async function signUp(page: Page, dash: string, smtp: SmtpListener, email: string, password: string) {
  await page.goto(`${dash}/signup`);
  await submitSignUp(page, email, password);
  await openMailLink(page, linkIn(await smtp.waitFor(email, /Confirm your e-mail/), 'verify'));
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
  await openMailLink(page, linkIn(await smtp.waitFor(email, /Reset your password/, { since }), 'reset'));
}
