export { classifyAddress, type AddressClass } from './address.ts';
export { retryDelayMs, type RetryPolicy } from './backoff.ts';
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
export {
  DELIVERY_RETENTION_MS,
  type ClaimedDelivery,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryStatus,
  type EndpointId,
  type EndpointInput,
  type RecordedAttempt,
  type SigningEndpoint,
  type WebhookAdapterName,
  type WebhookAdmin,
  type WebhookEndpoint,
  type WebhookQueue,
  type WebhookStores,
} from './store/port.ts';
export { createWebhookStores, type WebhookStoreOptions } from './store/stores.ts';
