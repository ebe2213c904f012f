export { createFileMailer, createSmtpMailer, MailError, type Mail, type Mailer } from './mailer.ts';
