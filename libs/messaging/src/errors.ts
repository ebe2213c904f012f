/**
 * Thrown by a consumer handler for a message that can never be processed (bad JSON, a payload
 * its schema rejects, an unknown version): the consumer `term()`s it instead of retrying, so one
 * bad event does not block the stream.
 */
export class PoisonMessageError extends Error {
  override readonly name = 'PoisonMessageError';
}

/** Thrown when a JetStream stream or consumer cannot be created or updated as asked. */
export class MessagingSetupError extends Error {
  override readonly name = 'MessagingSetupError';
}
