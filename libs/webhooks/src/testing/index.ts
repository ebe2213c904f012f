export {
  createSelfSignedCertificate,
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
  type ReceiverHandler,
  type SelfSignedCertificate,
} from './receiver.ts';
