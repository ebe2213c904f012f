import { readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';

/** The lowest port findFreePort hands out (below it: well-known and commonly configured ports). */
const LOWEST = 10_000;
/** Random candidates tried below the ephemeral range before falling back to the kernel's choice. */
const TRIES = 50;

/**
 * The first port of the kernel's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range,
 * 32768 by default), or undefined where it cannot be read.
 */
function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST + 1000 ? low : undefined;
  } catch {
    return undefined;
  }
}
const EPHEMERAL_LOW = ephemeralLow();

/** Listens on `port` (0: the kernel picks) exclusively and closes again; the port, or undefined if taken. */
function tryPort(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err),
    );
    server.listen({ port, host, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error(`could not read the port listened on at ${host}`));
        return;
      }
      server.close((err) => (err ? reject(err) : resolve(address.port)));
    });
  });
}

/**
 * Ports this process handed out, and when: a port is handed out once per HANDED_OUT_MS. A caller
 * starts its server some seconds after asking (a Node.js service binds once its imports are loaded),
 * and meanwhile the port still looks free: a second ask in that window must not get it (an e2e
 * run's projector failed with EADDRINUSE when a later service of the same system got its port).
 */
const handedOut = new Map<number, number>();
const HANDED_OUT_MS = 10 * 60_000;

/** Forgets the ports handed out longer ago than HANDED_OUT_MS. */
function forgetOldPorts(now: number): void {
  for (const [p, at] of handedOut) if (now - at > HANDED_OUT_MS) handedOut.delete(p);
}

/**
 * Finds a TCP port that is free right now on `host`, and not handed out by this process in the
 * last 10 minutes (HANDED_OUT_MS). Where the kernel's ephemeral range is known
 * (Linux), a random port below it: the kernel never hands such a port to an outgoing connection
 * or to a listener on port 0, so the services a test starts next (connecting to NATS, MongoDB and
 * Redis as they come up) cannot take it before the server meant for it listens. A port from the
 * ephemeral range, as the kernel's own pick gave, was taken that way now and then (EADDRINUSE on a
 * service's start). Elsewhere, or when no candidate is free, the kernel picks (port 0). Another
 * findFreePort caller could still choose the same port; callers that spawn a server retry on
 * "address in use" where it matters.
 */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  forgetOldPorts(Date.now());
  const handOut = (port: number): number => {
    handedOut.set(port, Date.now());
    return port;
  };
  if (EPHEMERAL_LOW !== undefined) {
    for (let i = 0; i < TRIES; i += 1) {
      const candidate = LOWEST + Math.floor(Math.random() * (EPHEMERAL_LOW - LOWEST));
      if (handedOut.has(candidate)) continue;
      const port = await tryPort(candidate, host);
      if (port !== undefined) return handOut(port);
    }
  }
  for (let i = 0; i < TRIES; i += 1) {
    const port = await tryPort(0, host);
    if (port === undefined) throw new Error(`no free port on ${host}`);
    if (!handedOut.has(port)) return handOut(port);
  }
  throw new Error(
    `no free port on ${host} that this process did not hand out in the last ${HANDED_OUT_MS / 60_000} minutes`,
  );
}

/** Finds `count` distinct free ports (distinct within this call). */
export async function findFreePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await findFreePort(host));
  return [...ports];
}

/** True when something accepts a TCP connection on host:port within `timeoutMs`. */
export function isPortOpen(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    const done = (open: boolean): void => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
