// What the services and their tests import; the modules export more for one another.
export { connectNats, inboxPrefixOf, natsAuthOptions } from './connection.ts';
export {
  consumeStream,
  followOptions,
  followStream,
  type StreamFollower,
  schemaDecoder,
  type AttemptContext,
  type PulledMessage,
  type RunningConsumer,
  type StallReport,
} from './consume.ts';
export {
  cotChecksBucketSpec,
  DEADLETTER_STREAM,
  EVENT_DUPLICATE_WINDOW_MS,
  incidentsBucketSpec,
  KEYS_PER_SUBJECT,
  releasesBucketSpec,
  REVOKED_KEY_RETENTION_MS,
  streamSpec,
  syncBucketSpec,
} from './definitions.ts';
export { PoisonMessageError } from './errors.ts';
export { connectMessaging, type Messaging } from './messaging.ts';
export {
  encodeJson,
  publishToStream,
  WrongLastSequenceError,
  type PublishOptions,
  type PublishResult,
} from './publish.ts';
export { compactStream, isJetStreamApiError, isWrongLastSequence } from './streams.ts';
export { injectTraceContext } from './trace-context.ts';
