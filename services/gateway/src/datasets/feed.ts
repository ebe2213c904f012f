import { API_PREFIX, type Incident } from '@cds/contracts';
import type { DatasetsDocument } from './board.ts';

/** Most entries the feed carries (the newest). */
export const FEED_MAX_ENTRIES = 200;

export const ATOM_TYPE = 'application/atom+xml; charset=utf-8';

interface FeedEntry {
  id: string;
  title: string;
  updatedMs: number;
  content: string;
}

/** Characters XML 1.0 cannot carry at all (C0 controls but tab, newline, return; lone surrogates; U+FFFE/F). */
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text as XML character data or an attribute value: the five special characters escaped, unrepresentable ones dropped. */
export function xmlText(s: string): string {
  return s
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function incidentEntries(incident: Incident, feedUrl: string): FeedEntry[] {
  return incident.updates.map((u, i) => ({
    id: `${feedUrl}#${incident.id}-${i + 1}`,
    title: `${incident.title} (${u.state})`,
    updatedMs: Date.parse(u.at),
    content:
      (incident.datasets.length > 0 ? `Affects ${incident.datasets.join(', ')}. ` : 'Affects the whole service. ') +
      u.message,
  }));
}

/**
 * The Atom 1.0 feed (RFC 4287) of the datasets document: one entry per incident update and one per
 * day a dataset was degraded, late or missing, newest first (at most FEED_MAX_ENTRIES); the feed's
 * `updated` is its newest entry's (the document's time when it has none).
 */
export function renderFeed(doc: DatasetsDocument, opts: { publicBaseUrl: string; nowMs: number }): string {
  const base = opts.publicBaseUrl.replace(/\/+$/, '');
  const feedUrl = `${base}${API_PREFIX}/datasets/feed`;
  const jsonUrl = `${base}${API_PREFIX}/datasets`;
  const entries: FeedEntry[] = [
    ...doc.incidents.flatMap((i) => incidentEntries(i, feedUrl)),
    ...doc.changes.map((c) => ({
      id: `${feedUrl}#${c.dataset.id}-${c.day.date}-${c.day.condition}`,
      title: `${c.dataset.title}: ${c.day.condition} on ${c.day.date}`,
      updatedMs: c.atMs,
      content: c.day.reasons.map((r) => r.message).join(' '),
    })),
  ]
    .sort((a, b) => b.updatedMs - a.updatedMs)
    .slice(0, FEED_MAX_ENTRIES);
  const updated = new Date(entries[0]?.updatedMs ?? opts.nowMs).toISOString();
  const lines = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${xmlText(feedUrl)}</id>`,
    '  <title>Commodity Data Service: dataset conditions and incidents</title>',
    `  <updated>${updated}</updated>`,
    `  <link rel="self" type="application/atom+xml" href="${xmlText(feedUrl)}"/>`,
    `  <link rel="alternate" type="application/json" href="${xmlText(jsonUrl)}"/>`,
    '  <author><name>Commodity Data Service</name></author>',
    ...entries.flatMap((e) => [
      '  <entry>',
      `    <id>${xmlText(e.id)}</id>`,
      `    <title>${xmlText(e.title)}</title>`,
      `    <updated>${new Date(e.updatedMs).toISOString()}</updated>`,
      `    <link rel="alternate" type="application/json" href="${xmlText(jsonUrl)}"/>`,
      `    <content type="text">${xmlText(e.content)}</content>`,
      '  </entry>',
    ]),
    '</feed>',
    '',
  ];
  return lines.join('\n');
}
