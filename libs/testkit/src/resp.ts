import { createConnection } from 'node:net';

// One raw RESP client for the test kit's server set-up and checks (sentinel views, cluster
// formation, CLUSTER KEYSLOT in specs), with no client library and a deadline on every command.

const HOST = '127.0.0.1';

/** A RESP reply; an error reply inside an array is a RespError value, so the rest still parses. */
export type RedisReply = string | number | null | RespError | RedisReply[];

export class RespError {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

/** Parses one RESP reply from `buf` at `pos`; undefined while it is incomplete. */
function parseReply(buf: Buffer, pos: number): { value: RedisReply; end: number } | undefined {
  const eol = buf.indexOf('\r\n', pos);
  if (eol < 0) return undefined;
  const type = String.fromCharCode(buf[pos]!);
  const head = buf.toString('utf8', pos + 1, eol);
  if (type === '+') return { value: head, end: eol + 2 };
  if (type === '-') return { value: new RespError(head), end: eol + 2 };
  if (type === ':') return { value: Number(head), end: eol + 2 };
  if (type === '$') {
    const len = Number(head);
    if (len < 0) return { value: null, end: eol + 2 };
    if (buf.length < eol + 2 + len + 2) return undefined;
    return { value: buf.toString('utf8', eol + 2, eol + 2 + len), end: eol + 2 + len + 2 };
  }
  if (type === '*') {
    const n = Number(head);
    if (n < 0) return { value: null, end: eol + 2 };
    const items: RedisReply[] = [];
    let at = eol + 2;
    for (let i = 0; i < n; i++) {
      const item = parseReply(buf, at);
      if (item === undefined) return undefined;
      items.push(item.value);
      at = item.end;
    }
    return { value: items, end: at };
  }
  throw new Error(`unexpected RESP reply ${JSON.stringify(buf.toString('utf8', pos, pos + 40))}`);
}

const encode = (words: readonly string[]): string =>
  `*${words.length}\r\n${words.map((w) => `$${Buffer.byteLength(w)}\r\n${w}\r\n`).join('')}`;

/**
 * Sends one command to the Redis server or sentinel on `port` (of `opts.host`, default 127.0.0.1) and
 * returns its reply; an error reply rejects. With `auth`, `AUTH user password` goes first in the same
 * round trip (servers whose default user has a password).
 */
export function redisCommand(
  port: number,
  words: readonly string[],
  opts: { timeoutMs?: number; auth?: { user: string; password: string }; host?: string } = {},
): Promise<RedisReply> {
  const timeoutMs = opts.timeoutMs ?? 2_000;
  const auth = opts.auth;
  const host = opts.host ?? HOST;
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port });
    let buf = Buffer.alloc(0);
    const fail = (err: Error): void => {
      socket.destroy();
      reject(err);
    };
    socket.setTimeout(timeoutMs, () =>
      fail(new Error(`${host}:${port} did not answer ${words[0]} in ${timeoutMs} ms`)),
    );
    socket.once('error', fail);
    socket.once('connect', () =>
      socket.write((auth !== undefined ? encode(['AUTH', auth.user, auth.password]) : '') + encode(words)),
    );
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      try {
        let at = 0;
        if (auth !== undefined) {
          const authed = parseReply(buf, 0);
          if (authed === undefined) return;
          if (authed.value instanceof RespError) {
            fail(new Error(`${host}:${port} refused AUTH as ${auth.user}: ${authed.value.message}`));
            return;
          }
          at = authed.end;
        }
        const reply = parseReply(buf, at);
        if (reply === undefined) return;
        socket.destroy();
        if (reply.value instanceof RespError) reject(new Error(`${host}:${port} ${words[0]}: ${reply.value.message}`));
        else resolve(reply.value);
      } catch (err) {
        fail(err instanceof Error ? err : new Error(String(err)));
      }
    });
  });
}
