export { createFileMailer, createMailer, createSmtpMailer, MailError, type Mail, type Mailer } from './mailer.ts';
