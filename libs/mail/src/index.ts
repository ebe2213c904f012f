export {
  createFileMailer,
  createMailer,
  createSmtpMailer,
  MailError,
  smtpTransportOptions,
  type Mail,
  type Mailer,
  type MailSettings,
} from './mailer.ts';
