export { connectNats, type NatsConnectOptions } from './connection.ts';
export {
  consumeStream,
  followerWatchdog,
  schemaDecoder,
  StalledAttemptError,
  type AttemptContext,
  type ConsumeMode,
  type ConsumeOptions,
  type PulledMessage,
  type RunningConsumer,
  type SafeParser,
  type StallReport,
  type WatchdogOptions,
} from './consume.ts';
export { ensureConsumer, type ConsumerSpec } from './consumer.ts';
export {
  DEADLETTER_STREAM,
  DEADLETTER_SUBJECTS,
  EVENT_DUPLICATE_WINDOW_MS,
  streamSpec,
  type StreamName,
} from './definitions.ts';
export { MessagingSetupError, PoisonMessageError } from './errors.ts';
export { connectMessaging, createMessaging, type Messaging } from './messaging.ts';
export { encodeJson, publishJson, type PublishOptions, type PublishResult } from './publish.ts';
export { ensureStream, isJetStreamApiError, type EnsureStreamResult, type StreamSpec } from './streams.ts';
export { extractTraceContext, injectTraceContext } from './trace-context.ts';
