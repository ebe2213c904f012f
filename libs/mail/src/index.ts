export {
  createFileMailer,
  createMailer,
  createSmtpMailer,
  MailError,
  type Mail,
  type Mailer,
  type MailSettings,
} from './mailer.ts';
