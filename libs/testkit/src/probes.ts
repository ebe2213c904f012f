import { createConnection } from 'node:net';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { MongoClient } from 'mongodb';

/** Connects to NATS and asks JetStream for account info, so "ready" means JetStream is usable. */
export async function probeNats(url: string, timeoutMs = 2_000): Promise<void> {
  const nc = await connect({ servers: url, timeout: timeoutMs, reconnect: false, name: 'cds-testkit-probe' });
  try {
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
    await jsm.getAccountInfo();
  } finally {
    await nc.close();
  }
}

/** Sends a raw RESP `PING` and expects `+PONG`; no client library needed for one round trip. */
export function probeRedis(host: string, port: number, timeoutMs = 2_000): Promise<void> {
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
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
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
