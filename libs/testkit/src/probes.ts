import { createConnection } from 'node:net';
import { urlCredentials } from '@cds/config';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { MongoClient } from 'mongodb';

/**
 * Connects to NATS (with the user in `url`, if any) and asks JetStream for account info, so "ready"
 * means JetStream is usable.
 */
export async function probeNats(url: string, timeoutMs = 2_000): Promise<void> {
  const { address, user, password } = urlCredentials(url);
  const nc = await connect({
    servers: address,
    ...(user !== undefined ? { user, pass: password ?? '' } : {}),
    timeout: timeoutMs,
    reconnect: false,
    name: 'cds-testkit-probe',
  });
  try {
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
    await jsm.getAccountInfo();
  } finally {
    await nc.close();
  }
}

/** One RESP command (an array of bulk strings). */
function resp(...words: string[]): string {
  return `*${words.length}\r\n${words.map((w) => `$${Buffer.byteLength(w)}\r\n${w}\r\n`).join('')}`;
}

/**
 * Sends a raw RESP `PING` (after `AUTH` when `url` has a user) and expects `+PONG`; no client
 * library needed for one round trip.
 */
export function probeRedis(url: string, timeoutMs = 2_000): Promise<void> {
  const parsed = new URL(url);
  const host = parsed.hostname;
  const port = Number(parsed.port || 6379);
  const { user, password } = urlCredentials(url);
  let auth = user !== undefined ? resp('AUTH', user === '' ? 'default' : user, password ?? '') : '';
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port });
    let reply = '';
    const fail = (err: Error): void => {
      socket.destroy();
      reject(err);
    };
    socket.setTimeout(timeoutMs, () =>
      fail(new Error(`redis at ${host}:${port} did not answer PING in ${timeoutMs} ms`)),
    );
    socket.once('error', fail);
    socket.once('connect', () => socket.write(`${auth}${resp('PING')}`));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (auth !== '') {
        if (!reply.includes('\r\n')) return;
        if (!reply.startsWith('+OK\r\n')) {
          socket.destroy();
          reject(new Error(`redis at ${host}:${port} refused AUTH: ${JSON.stringify(reply.trim())}`));
          return;
        }
        reply = reply.slice('+OK\r\n'.length);
        // Checked once: the rest is PING's answer.
        auth = '';
      }
      if (!reply.includes('\r\n')) return;
      socket.destroy();
      // -LOADING means the server is up but still reading its dataset: not ready yet.
      if (reply.startsWith('+PONG')) resolve();
      else reject(new Error(`redis at ${host}:${port} answered PING with ${JSON.stringify(reply.trim())}`));
    });
  });
}

/** Runs the `ping` command through the official driver, the same path the services use. */
export async function probeMongo(url: string, timeoutMs = 2_000): Promise<void> {
  const client = new MongoClient(url, {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    maxPoolSize: 1,
  });
  try {
    await client.db('admin').command({ ping: 1 });
  } finally {
    await client.close();
  }
}
