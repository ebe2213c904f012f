import { connectMessaging, natsAuthOptions, type Messaging } from '@cds/messaging';
import type { IngestEnv } from '../config.ts';
import { createKvLedger } from '../publish/ledger.ts';
import { createPublisher, type Publisher } from '../publish/publisher.ts';
import { ensureEventStreams } from '../publish/streams.ts';

/** What a publishing command works with once NATS is reached and the event streams exist. */
export interface Publishing {
  messaging: Messaging;
  /** A publisher over the streams, with the ledger unless `--no-ledger`, warning on retries. */
  newPublisher: () => Publisher;
}

/**
 * The start and end every publishing command (`backfill`, `fetch`, `sync`) shares: connects to
 * NATS (a deadline of 5 s), ensures the event streams, opens the published-ids ledger unless
 * `ledger` is false, runs `work`, and closes the connection whatever happens. Returns the exit
 * code: `work`'s, or 1 when NATS cannot be reached or the work throws (said on stderr as
 * "<what> failed: <reason>", never a stack trace).
 */
export async function withPublishing(
  opts: { natsUrl: string; settings: IngestEnv; ledger: boolean; name: string; what: string; say: (t: string) => void },
  work: (p: Publishing) => Promise<number>,
): Promise<number> {
  const { settings, say } = opts;
  let messaging: Messaging;
  try {
    messaging = await untilJetStreamAnswers(say, () =>
      connectMessaging({ servers: opts.natsUrl, name: `${opts.name}-${process.pid}`, timeoutMs: 5_000 }),
    );
  } catch (err) {
    // The addresses without their passwords (a wrong one reads "Authorization Violation").
    say(`error: cannot reach NATS at ${natsAuthOptions(opts.natsUrl).servers.join(',')}: ${(err as Error).message}`);
    return 1;
  }
  try {
    // CDS_DATA only: the keys stream is the admin API's.
    const ledger = await untilJetStreamAnswers(say, async () => {
      await ensureEventStreams(
        messaging,
        { replicas: settings.STREAM_REPLICAS, duplicateWindowMs: settings.DUPLICATE_WINDOW_MS },
        ['data'],
      );
      return opts.ledger ? await createKvLedger(messaging.js, { replicas: settings.STREAM_REPLICAS }) : undefined;
    });
    let retriesReported = 0;
    let stored = 0;
    const stopAfter = settings.INGEST_STOP_AFTER;
    const newPublisher = () =>
      createPublisher({
        js: messaging.js,
        window: settings.PUBLISH_WINDOW,
        ...(ledger !== undefined ? { ledger } : {}),
        onRetry: (err) => {
          // One line per burst of failures, not one per event.
          if (retriesReported++ % 100 === 0)
            say(`\nwarning: publish failed, retrying with the same ids: ${(err as Error).message}`);
        },
        ...(stopAfter !== undefined
          ? {
              onSettled: (_event, outcome) => {
                if (outcome === 'published' && ++stored === stopAfter) stopSelf(stored);
              },
            }
          : {}),
      });
    return await work({ messaging, newPublisher });
  } catch (err) {
    say(`\nerror: ${opts.what} failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await messaging.close().catch(() => undefined);
  }
}

/**
 * How long a publishing command asks again for its connection, streams and ledger while JetStream
 * does not answer in time or says it is temporarily unavailable (a leader election, a server cut
 * off: docs/reliability.md "Partitions"); its publishes retry for 5 min (docs/ingest.md). Any other
 * error (a wrong password, a refused subject, a stream that cannot be changed) ends it at once.
 */
const SETUP_RETRY_MS = 60_000;
const TRANSIENT = /timeout|temporarily unavailable|no responders/i;

async function untilJetStreamAnswers<T>(say: (t: string) => void, step: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await step();
    } catch (err) {
      if (!TRANSIENT.test(String(err)) || Date.now() - started > SETUP_RETRY_MS) throw err;
      if (attempt === 1)
        say(`\nwarning: JetStream did not answer (${(err as Error).message}); asking again for up to 60 s`);
      await new Promise((r) => setTimeout(r, Math.min(5_000, 500 * attempt)));
    }
  }
}

/** INGEST_STOP_AFTER: says where it stops (for the test's log), then stops the whole process until SIGCONT. */
function stopSelf(stored: number): void {
  process.stderr.write(`\nINGEST_STOP_AFTER: ${stored} events stored; stopping (SIGSTOP) with publishes in flight\n`);
  process.kill(process.pid, 'SIGSTOP');
}
