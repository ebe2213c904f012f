// A server-sent events client for the e2e specs of GET /api/v1/events: node:http, the stream parsed
// as the EventSource specification reads it (events separated by a blank line; `id`, `event`,
// `data`, `retry` fields; `:` comments), every event stamped with its arrival time.
import { request, type IncomingHttpHeaders } from 'node:http';

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
  /** Date.now() when the blank line ending it arrived. */
  at: number;
}

export interface SseClient {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body of a refusal (an error answer is JSON, not a stream). */
  body: string;
  events: SseEvent[];
  comments: string[];
  retry: number | undefined;
  /** Everything received, as text. */
  raw(): string;
  /** Resolves when the server ended the response (or the connection closed). */
  readonly ended: Promise<void>;
  isEnded(): boolean;
  /** The change events (series.updated, cot.updated) received (the client's own array: do not change it). */
  changes(): SseEvent[];
  /** Waits until `probe` holds over the events received, or fails after `timeoutMs`. */
  waitFor(label: string, probe: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens `url` (a gateway address with path and query) with a key; resolves once the status line and headers are in. */
export function openSse(
  url: string,
  opts: { key?: string; lastEventId?: string; headers?: Record<string, string> } = {},
): Promise<SseClient> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...opts.headers };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  if (opts.lastEventId !== undefined) headers['last-event-id'] = opts.lastEventId;
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, timeout: 10_000 }, (res) => {
      req.setTimeout(0);
      let buffer = '';
      let all = '';
      let ended = false;
      const waiters = new Set<() => void>();
      let endResolve: () => void = () => {};
      const changeEvents: SseEvent[] = [];
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: '',
        events: [],
        comments: [],
        retry: undefined,
        raw: () => all,
        ended: new Promise<void>((r) => (endResolve = r)),
        isEnded: () => ended,
        changes: () => changeEvents,
        waitFor(label, probe, timeoutMs = 10_000) {
          return new Promise<void>((ok, fail) => {
            const check = () => {
              if (probe(client.events)) {
                waiters.delete(check);
                clearTimeout(timer);
                ok();
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              const last = client.events.slice(-3).map((e) => `${e.event} ${e.id ?? ''} ${e.data.slice(0, 300)}`);
              fail(
                new Error(
                  `${label}: not seen within ${timeoutMs} ms; ${client.events.length} events received` +
                    `${ended ? ' (the stream ended)' : ''}, the last: ${last.join(' | ')}`,
                ),
              );
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        close: () => {
          res.destroy();
          req.destroy();
        },
      };
      const finish = () => {
        if (ended) return;
        ended = true;
        endResolve();
        for (const w of [...waiters]) w();
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        all += chunk;
        if (client.status !== 200) {
          client.body += chunk;
          return;
        }
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let id: string | undefined;
          let event = 'message';
          const data: string[] = [];
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) {
              client.comments.push(line.slice(1).trim());
              continue;
            }
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') id = value;
            else if (field === 'event') event = value;
            else if (field === 'data') {
              data.push(value);
              isEvent = true;
            } else if (field === 'retry') client.retry = Number(value);
          }
          if (isEvent) {
            const e = { id, event, data: data.join('\n'), at: Date.now() };
            client.events.push(e);
            if (event === 'series.updated' || event === 'cot.updated') changeEvents.push(e);
          }
        }
        for (const w of [...waiters]) w();
      });
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      resolve(client);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within 10 s`)));
    req.on('error', reject);
    req.end();
  });
}
