import { getTestInfra, uniqueName } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMessaging, encodeJson, publishToStream, WrongLastSequenceError, type Messaging } from './index.ts';

// publishToStream, the one JetStream publish: deduplication by message id, the expected stream and
// the expected last sequence of the subject (optimistic concurrency), each against a real server.
const stream = uniqueName('pub').toUpperCase();
let messaging: Messaging;

beforeAll(async () => {
  messaging = await connectMessaging({ servers: getTestInfra().natsUrl, name: 'publish-int-spec' });
  await messaging.ensureStream({ name: stream, subjects: [`${stream}.>`], replicas: 1, duplicateWindowMs: 60_000 });
});

afterAll(async () => {
  await messaging?.jsm.streams.delete(stream).catch(() => undefined);
  await messaging?.close();
});

describe('publishToStream', () => {
  it('stores a message once per message id: a repeat inside the window is acknowledged as a duplicate', async () => {
    const subject = `${stream}.dedup`;
    const first = await publishToStream(messaging.js, subject, encodeJson({ n: 1 }), { msgID: 'dedup-1' });
    const again = await publishToStream(messaging.js, subject, encodeJson({ n: 1 }), { msgID: 'dedup-1' });
    expect(first).toMatchObject({ stream, duplicate: false });
    expect(again).toEqual({ stream, seq: first.seq, duplicate: true });
  });

  it('stores only when the subject is at the expected sequence, else WrongLastSequenceError', async () => {
    const subject = `${stream}.account.a1`;
    // 0: the subject must be new.
    const created = await publishToStream(messaging.js, subject, encodeJson({ v: 1 }), {
      msgID: 'a1-1',
      expectLastSubjectSequence: 0,
    });
    // A second writer that read the same (empty) state loses.
    await expect(
      publishToStream(messaging.js, subject, encodeJson({ v: 1 }), { msgID: 'a1-racer', expectLastSubjectSequence: 0 }),
    ).rejects.toBeInstanceOf(WrongLastSequenceError);
    // A writer that saw the stored message wins.
    const changed = await publishToStream(messaging.js, subject, encodeJson({ v: 2 }), {
      msgID: 'a1-2',
      expectLastSubjectSequence: created.seq,
    });
    expect(changed.seq).toBeGreaterThan(created.seq);
    const stale = publishToStream(messaging.js, subject, encodeJson({ v: 3 }), {
      msgID: 'a1-3',
      expectLastSubjectSequence: created.seq,
    });
    await expect(stale).rejects.toThrow(WrongLastSequenceError);
    await expect(stale).rejects.toThrow(`${subject} changed since sequence ${created.seq}`);
    // The refused messages were not stored.
    const last = await messaging.jsm.streams.getMessage(stream, { last_by_subj: subject });
    expect(last?.json()).toEqual({ v: 2 });
  });

  it('refuses a subject captured by another stream than the expected one, with the server error as it is', async () => {
    const err = await publishToStream(messaging.js, `${stream}.other`, encodeJson({}), {
      msgID: 'other-1',
      expectStream: `${stream}_NOT_THIS`,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(WrongLastSequenceError);
  });
});
