import type { ServerResponse } from 'node:http';
import {
  ALWAYS_ALLOWED_QUERY_PARAMS,
  EVENTS_PATH,
  EventsQuery,
  LastEventId,
  SSE_STREAMS_PER_PLAN,
  type NotificationTopic,
} from '@cds/contracts';
import { ApiError, InvalidParameterError, ServiceUnavailableError, UnauthorizedError, parseParams } from '@cds/http';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { addApiAnswerHeaders, apiAnswerHeaders } from '../api/answer-headers.ts';
import type { KeyLookup } from '../auth/authenticate.ts';
import { extractKey } from '../auth/extract-key.ts';
import type { CatalogCheck } from './catalog-check.ts';
import { forbiddenTopicMessage, slotMember, topicsFor } from './filter.ts';
import type { EventHub, StreamSink } from './hub.ts';
import type { StreamPlace } from './stream-caps.ts';
import type { StreamSlots } from './stream-slots.ts';

/** What the events step decided, for the handler. */
export interface EventsRequest {
  requested: readonly NotificationTopic[] | undefined;
  commodities: readonly string[] | undefined;
  lastEventId: number | undefined;
  /** The slot taken (GET only). */
  member: string | undefined;
  /** The place taken in this replica's stream caps (GET only); freed when the response closes. */
  place: StreamPlace | undefined;
  /** `lastEventId` is past the end of the changes stream. */
  pastStreamEnd: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the events step of GET /api/v1/events. */
    events: EventsRequest | null;
  }
}

export interface EventsRouteDeps {
  /** The auth and rate-window steps of the other keyed routes (one request counted per stream opened). */
  auth: preHandlerHookHandler;
  windows: preHandlerHookHandler;
  /** The key table, looked up again as the stream opens (a revocation or plan change during the checks). */
  keys: KeyLookup;
  hub: EventHub;
  catalog: CatalogCheck;
  slots: StreamSlots;
  /** Whether the hub holds the changes stream (its follower caught up): until then streams are 503. */
  isReady: () => boolean;
  /**
   * The changes stream's last sequence now (asked of NATS with a deadline), for a Last-Event-ID ahead
   * of this replica: past it, the stream was recreated and the client gets a resync. Undefined: not known.
   */
  streamLastSeq?: () => Promise<number | undefined>;
  securityHeaders: Readonly<Record<string, string>>;
  /** This process in stream slots (several replicas share the account's set). */
  replicaId: string;
  nowMs: () => number;
  /** A stream cut off whose response has not finished after this is destroyed. */
  endGraceMs?: number;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
} as const;

/**
 * GET /api/v1/events: server-sent change notifications. The steps of the other keyed routes (auth,
 * windows: opening a stream counts one request), then the events step (parameters through the
 * one zod-to-400 adapter, Last-Event-ID, the plan's topics, the catalog, this replica's stream caps
 * in all and per client address, the account's stream slot), then the handler hands the response
 * to the hub.
 */
export function registerEventsRoute(app: FastifyInstance, deps: EventsRouteDeps): void {
  app.decorateRequest('events', null);
  let streams = 0;
  const check = createEventsStep(deps, () => (streams += 1));
  app.get(
    EVENTS_PATH,
    { preHandler: [deps.auth, deps.windows, check], onSend: addApiAnswerHeaders },
    (request, reply) => openStream(request, reply, deps),
  );
}

function createEventsStep(deps: EventsRouteDeps, nextStream: () => number): preHandlerHookHandler {
  return function checkEventsRequest(request, reply, done) {
    decide(request, reply, deps, nextStream).then((events) => {
      request.events = events;
      done();
    }, done);
  };
}

async function decide(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: EventsRouteDeps,
  nextStream: () => number,
): Promise<EventsRequest> {
  const principal = request.principal!;
  const parsed = parseParams(EventsQuery, request.query as Record<string, unknown>, {
    ignore: ALWAYS_ALLOWED_QUERY_PARAMS,
  });
  if (!parsed.ok) throw new InvalidParameterError(parsed.param, parsed.message);
  const header = request.headers['last-event-id'];
  let lastEventId = parsed.value.last_event_id;
  if (header !== undefined) {
    const id = LastEventId.safeParse(header);
    if (!id.success) {
      throw new InvalidParameterError(
        'Last-Event-ID',
        "invalid 'Last-Event-ID': must be the id of an event received: a non-negative integer",
      );
    }
    lastEventId = id.data;
  }
  const requested = parsed.value.types;
  const topics = topicsFor(principal.plan, requested);
  if (!topics.ok) throw new ApiError('forbidden', forbiddenTopicMessage(topics.topic), { param: 'types' });
  const commodities = parsed.value.commodities;
  if (commodities !== undefined) {
    const unknown = await deps.catalog.firstUnknown(commodities, String(request.id));
    if (unknown !== undefined) {
      throw new InvalidParameterError('commodities', `invalid 'commodities': unknown commodity '${unknown}'`);
    }
  }
  if (!deps.isReady()) {
    throw new ServiceUnavailableError('The notification stream is starting on this server; retry shortly.');
  }
  let pastStreamEnd = false;
  if (lastEventId !== undefined && lastEventId > deps.hub.ring.lastSeq && deps.streamLastSeq !== undefined) {
    const last = await deps.streamLastSeq();
    pastStreamEnd = last !== undefined && lastEventId > last;
  }
  let member: string | undefined;
  let place: StreamPlace | undefined;
  if (request.method === 'GET') {
    place = takePlace(request, reply, deps.hub);
    try {
      member = slotMember(deps.nowMs(), deps.replicaId, nextStream(), requested);
      const limit = SSE_STREAMS_PER_PLAN[principal.plan];
      const slot = await deps.slots.acquire(principal.accountId, member, limit);
      if (!slot.admitted) {
        throw new ApiError(
          'rate_limited',
          `Your plan allows ${limit} concurrent event stream${limit === 1 ? '' : 's'} per account, and ${limit === 1 ? 'it is' : 'they are'} open: close one first.`,
          { headers: { 'retry-after': '3' } },
        );
      }
    } catch (err) {
      place.release();
      throw err;
    }
  }
  return { requested, commodities, lastEventId, member, pastStreamEnd, place };
}

/**
 * A place in this replica's stream caps for the client's address (IPv6 by /64): 429 past the
 * client's cap, 503 past the replica's (another replica may have room). The place is freed when
 * the response closes, however it ends (a refusal further on, the stream's end, the client gone),
 * and at once by the refusals of this route.
 */
function takePlace(request: FastifyRequest, reply: FastifyReply, hub: EventHub): StreamPlace {
  const decision = hub.caps.take(request.ip);
  if (!decision.ok && decision.cap === 'client') {
    throw new ApiError(
      'rate_limited',
      `Too many event streams are open from your address (at most ${hub.caps.maxStreamsPerClient} on each server): close one first.`,
      { headers: { 'retry-after': '3' } },
    );
  }
  if (!decision.ok) {
    throw new ApiError(
      'service_unavailable',
      'This server holds as many event streams as it can; retry shortly (another server may have room).',
      { headers: { 'retry-after': '5' } },
    );
  }
  const { place } = decision;
  const res = reply.raw;
  // A response already closed (the client left while the checks ran) emits no more 'close'.
  if (res.destroyed) place.release();
  else res.once('close', () => place.release());
  return place;
}

function openStream(request: FastifyRequest, reply: FastifyReply, deps: EventsRouteDeps): void {
  const events = request.events!;
  // The checks above awaited the catalog and Redis: the key table may have moved since the auth
  // step (the hub acts on key events for open streams only), so the stream opens on what it says now.
  const extracted = extractKey(request.headers, request.raw.rawHeaders, request.query);
  const principal = extracted.ok ? deps.keys.lookup(extracted.key) : undefined;
  let refusal: ApiError | undefined;
  if (principal === undefined) {
    refusal = new UnauthorizedError('The API key is not valid: it is malformed, unknown or revoked.');
  } else if (!topicsFor(principal.plan, events.requested).ok) {
    refusal = new ApiError('forbidden', 'Your plan changed: it does not include a type you asked for.', {
      param: 'types',
    });
  }
  if (principal === undefined || refusal !== undefined) {
    events.place?.release();
    if (events.member !== undefined) void deps.slots.release(request.principal!.accountId, events.member);
    throw refusal ?? new UnauthorizedError();
  }
  const headers = {
    ...deps.securityHeaders,
    'x-request-id': String(request.id),
    ...apiAnswerHeaders(request),
    ...SSE_HEADERS,
  };
  if (events.member === undefined) {
    // HEAD: the headers a stream would have, no stream.
    void reply.headers(headers).code(200).send();
    return;
  }
  reply.hijack();
  const res = reply.raw;
  const socket = request.raw.socket;
  // The server's idle timeout would end a quiet stream: heartbeats and the slow-consumer rule
  // watch it instead; TCP keep-alive finds a peer that vanished.
  socket.setTimeout(0);
  socket.setKeepAlive(true, 60_000);
  socket.setNoDelay(true);
  res.writeHead(200, headers);
  const stream = deps.hub.open({
    requestId: String(request.id),
    principal,
    requested: events.requested,
    commodities: events.commodities,
    lastEventId: events.lastEventId,
    pastStreamEnd: events.pastStreamEnd,
    member: events.member,
    sink: responseSink(res, deps.endGraceMs ?? 5_000),
  });
  res.once('close', () => stream.close());
  // Gone before the stream was attached: 'close' has already been emitted.
  if (res.destroyed || socket.destroyed) stream.close();
}

/** The hub's view of a response: its unsent bytes are the response's and its socket's. */
function responseSink(res: ServerResponse, endGraceMs: number): StreamSink {
  return {
    write: (chunk) => {
      if (!res.writableEnded && !res.destroyed) res.write(chunk);
    },
    unsent: () => res.writableLength,
    onDrain: (fn) => {
      // 'drain' comes only after a write that found the buffer full; otherwise there is room now.
      if (res.writableNeedDrain) res.once('drain', fn);
      else setImmediate(fn);
    },
    end: (last) => {
      if (res.writableEnded || res.destroyed) return;
      res.end(last);
      // A client that does not read would hold the final bytes, and the socket, forever.
      const timer = setTimeout(() => res.destroy(), endGraceMs);
      timer.unref();
      res.once('close', () => clearTimeout(timer));
    },
  };
}
