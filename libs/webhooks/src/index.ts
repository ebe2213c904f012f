export { classifyAddress, type AddressClass } from './address.ts';
export { retryDelayMs, type RetryPolicy } from './backoff.ts';
export {
  createWebhookStore,
  DELIVERY_RETENTION_MS,
  type ClaimedDelivery,
  type RecordedAttempt,
  type SigningEndpoint,
  type WebhookQueue,
  type WebhookStore,
  type WebhookStoreOptions,
} from './mongo-store.ts';
export {
  checkWebhookUrl,
  createOutboundClient,
  RefusedAddressError,
  type OutboundClient,
  type OutboundOptions,
  type PostResult,
  type Resolver,
  type UrlCheck,
} from './outbound.ts';
export {
  newSigningSecret,
  PREVIOUS_SECRET_VALID_MS,
  SIGNATURE_HEADER,
  SIGNATURE_TOLERANCE_SECONDS,
  signDelivery,
  signingSecrets,
  verifySignature,
  type EndpointSecrets,
  type SignatureCheck,
} from './signature.ts';
export type {
  Delivery,
  DeliveryAttempt,
  DeliveryStatus,
  EndpointId,
  EndpointInput,
  WebhookAdmin,
  WebhookEndpoint,
} from './store.ts';
