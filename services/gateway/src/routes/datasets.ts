import {
  ALWAYS_ALLOWED_QUERY_PARAMS,
  API_PREFIX,
  CONDITION_DAYS,
  datasetById,
  RELEASES_FIRST_DATE,
  RELEASES_LAST_DATE,
  RELEASES_MAX_DAYS,
  ReleasesQuery,
  type ReleasesResponse,
  type DatasetsResponse,
} from '@cds/contracts';
import { InvalidParameterError, parseParams, ServiceUnavailableError } from '@cds/http';
import { addDays } from '@cds/schedule';
import type { FastifyInstance } from 'fastify';
import { localDate, type DatasetsBoard } from '../datasets/board.ts';
import { ATOM_TYPE, renderFeed } from '../datasets/feed.ts';
import { API_HEADERS, JSON_TYPE } from '../server/headers.ts';

export const DATASETS_URL = `${API_PREFIX}/datasets`;
export const DATASETS_FEED_URL = `${API_PREFIX}/datasets/feed`;
export const RELEASES_URL = `${API_PREFIX}/releases`;

/** Days after today GET /releases lists by default. */
const DEFAULT_AHEAD_DAYS = 31;
const DAY_MS = 86_400_000;
const daysBetween = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / DAY_MS);
const clamp = (d: string, lo: string, hi: string) => (d < lo ? lo : d > hi ? hi : d);

/**
 * The window of GET /releases (docs/freshness.md): given dates as given; without start_date, 90 days
 * before today, kept 90 to 366 days before end_date; without end_date, 31 days after today, kept 31
 * to 366 days after start_date; all within RELEASES_FIRST_DATE..RELEASES_LAST_DATE (a given date
 * outside is a 400 naming it). An end before the start, or more than RELEASES_MAX_DAYS after it, is
 * a 400 naming end_date.
 */
export function releasesWindow(
  q: { start_date?: string | undefined; end_date?: string | undefined },
  today: string,
): { startDate: string; endDate: string } {
  for (const param of ['start_date', 'end_date'] as const) {
    const date = q[param];
    if (date !== undefined && (date < RELEASES_FIRST_DATE || date > RELEASES_LAST_DATE)) {
      throw new InvalidParameterError(
        param,
        `invalid '${param}': must be from ${RELEASES_FIRST_DATE} to ${RELEASES_LAST_DATE}`,
      );
    }
  }
  const defaultStart = addDays(today, -CONDITION_DAYS);
  const startDate =
    q.start_date ??
    (q.end_date === undefined
      ? defaultStart
      : clamp(defaultStart, addDays(q.end_date, -RELEASES_MAX_DAYS), addDays(q.end_date, -CONDITION_DAYS)));
  const endDate =
    q.end_date ??
    clamp(
      addDays(today, DEFAULT_AHEAD_DAYS),
      addDays(startDate, DEFAULT_AHEAD_DAYS),
      addDays(startDate, RELEASES_MAX_DAYS),
    );
  const window = {
    startDate: clamp(startDate, RELEASES_FIRST_DATE, RELEASES_LAST_DATE),
    endDate: clamp(endDate, RELEASES_FIRST_DATE, RELEASES_LAST_DATE),
  };
  if (window.endDate < window.startDate) {
    throw new InvalidParameterError(
      'end_date',
      `invalid 'end_date': ${window.endDate} is before start_date ${window.startDate}`,
    );
  }
  if (daysBetween(window.startDate, window.endDate) > RELEASES_MAX_DAYS) {
    throw new InvalidParameterError(
      'end_date',
      `invalid 'end_date': the window ${window.startDate} to ${window.endDate} is longer than ${RELEASES_MAX_DAYS} days`,
    );
  }
  return window;
}

/**
 * GET /datasets, GET /datasets/feed and GET /releases: public, no key, no rate window, no database;
 * answered from the datasets board (memory), 503 without it (no NATS followers). Returns the paths.
 */
export function registerDatasetsRoutes(
  app: FastifyInstance,
  deps: { datasets?: DatasetsBoard | undefined; nowMs: () => number; publicBaseUrl: string },
): string[] {
  const { datasets, nowMs } = deps;
  const headers = { ...API_HEADERS, 'cache-control': 'public, max-age=60' };
  const board = (): DatasetsBoard => {
    if (datasets === undefined) throw new ServiceUnavailableError('The dataset conditions are not available.');
    return datasets;
  };

  // The board recomputes its document at most once a second: its JSON (all but `meta`) and its feed
  // are written once per document, not per request (a document is some 100 KB of JSON).
  const bodies = new WeakMap<object, string>();
  const feeds = new WeakMap<object, string>();
  app.get(DATASETS_URL, (request, reply) => {
    const now = nowMs();
    const doc = board().document(now);
    let head = bodies.get(doc);
    if (head === undefined) {
      const whole: Omit<DatasetsResponse, 'meta'> = { data: doc.data, incidents: doc.incidents };
      head = JSON.stringify(whole).slice(0, -1);
      bodies.set(doc, head);
    }
    const meta: DatasetsResponse['meta'] = {
      request_id: String(request.id),
      generated_at: new Date(now).toISOString(),
    };
    return reply
      .headers(headers)
      .type(JSON_TYPE)
      .send(`${head},"meta":${JSON.stringify(meta)}}`);
  });

  app.get(DATASETS_FEED_URL, (_request, reply) => {
    const now = nowMs();
    const doc = board().document(now);
    let xml = feeds.get(doc);
    if (xml === undefined) {
      xml = renderFeed(doc, { publicBaseUrl: deps.publicBaseUrl, nowMs: now });
      feeds.set(doc, xml);
    }
    return reply.headers(headers).type(ATOM_TYPE).send(xml);
  });

  app.get(RELEASES_URL, (request, reply) => {
    const parsed = parseParams(ReleasesQuery, request.query as Record<string, unknown>, {
      ignore: ALWAYS_ALLOWED_QUERY_PARAMS,
    });
    if (!parsed.ok) throw new InvalidParameterError(parsed.param, parsed.message);
    const q = parsed.value;
    const now = nowMs();
    const { startDate, endDate } = releasesWindow(q, localDate(now));
    const dataset = datasetById(q.dataset)!;
    const window = board().releases(dataset, startDate, endDate, now);
    const records =
      q.status === undefined
        ? window.records
        : window.records.filter((r) => (q.status === 'shifted' ? r.shifted !== undefined : r.status === q.status));
    const from = (q.page - 1) * q.per_page;
    const body: ReleasesResponse = {
      data: from < records.length ? records.slice(from, from + q.per_page) : [],
      meta: {
        request_id: String(request.id),
        dataset: dataset.id,
        start_date: startDate,
        end_date: endDate,
        page: q.page,
        per_page: q.per_page,
        total: records.length,
        freshness: window.freshness,
      },
    };
    return reply.headers(headers).type(JSON_TYPE).send(body);
  });

  return [DATASETS_URL, DATASETS_FEED_URL, RELEASES_URL];
}
