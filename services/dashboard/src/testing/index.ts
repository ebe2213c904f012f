export { linkIn, parseMail, startSmtpListener, type ReceivedMail, type SmtpListener } from './smtp-listener.ts';
