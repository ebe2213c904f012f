import { KeyEvent, subjectFor } from '@cds/contracts';
import { ServiceUnavailableError } from '@cds/http';
import { encodeJson, publishToStream, WrongLastSequenceError } from '@cds/messaging';
import type { CommandContext } from './context.ts';

/** Thrown (inside) when a publish lost an optimistic-concurrency race; the command re-validates. */
class ConcurrentChange extends Error {}

/**
 * Publishes a key event against the stream sequence of its subject (0: the subject is new), then
 * waits until the key log has applied it, so a following read sees it. A lost race is a
 * ConcurrentChange for `execute`; NATS down is a 503.
 */
export async function publishKeyEvent(ctx: CommandContext, event: KeyEvent, expectedSubjectSeq: number): Promise<void> {
  const checked = KeyEvent.parse(event);
  // Sent first: the gateways hear it before the stream has stored (fsynced) the event. A revocation
  // that then fails here is answered 503 (retry); the gateways' notice lapses unconfirmed.
  if (checked.type === 'key.revoked') ctx.announceRevocation(checked);
  let seq: number;
  try {
    const ack = await publishToStream(ctx.js, subjectFor(checked), encodeJson(checked), {
      msgID: checked.id,
      expectLastSubjectSequence: expectedSubjectSeq,
      timeoutMs: 5_000,
    });
    seq = ack.seq;
  } catch (err) {
    if (err instanceof WrongLastSequenceError) throw new ConcurrentChange('subject changed', { cause: err });
    throw new ServiceUnavailableError('The event log (NATS) is unavailable; retry shortly.', err);
  }
  try {
    await ctx.log.waitFor(seq);
  } catch (err) {
    throw new ServiceUnavailableError('The change was stored but is not visible yet; retry the read shortly.', err);
  }
}

/** Runs build-and-publish, re-validating after catching up when another writer won a race. */
export async function execute<T>(ctx: CommandContext, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof ConcurrentChange)) throw err;
      if (n >= ctx.maxAttempts) {
        throw new ServiceUnavailableError('The account or key is being changed concurrently; retry shortly.', err);
      }
      await ctx.log.catchUp().catch(() => undefined);
    }
  }
}
