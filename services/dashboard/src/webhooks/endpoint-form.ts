import {
  AVAILABLE_SERIES_TYPES,
  COMMODITY_ID_PATTERN,
  COT_DATASETS,
  cotDatasetOfType,
  MAX_COMMODITY_ID_LENGTH,
  MAX_EVENT_FILTER_COMMODITIES,
  PLANS,
  topicAllowed,
  type NotificationTopic,
  type Plan,
} from '@cds/contracts';

/** The longest URL the form takes (the notifier's requests carry it in full). */
export const MAX_WEBHOOK_URL_LENGTH = 2000;

/** The endpoint form as the user typed it (kept to show it again with the errors). */
export interface EndpointFormValues {
  url: string;
  /** The commodities field as typed: "all", empty, or a comma list. */
  commodities: string;
  /** "all": every type the plan includes; "some": the ticked `types`. */
  typesMode: 'all' | 'some';
  types: string[];
  enabled: boolean;
}

export type EndpointField = 'url' | 'commodities' | 'types';
export type FieldErrors = Partial<Record<EndpointField, string>>;

/** The form's fields read from a parsed urlencoded body; a repeated single field reads as ''. */
export function readEndpointForm(body: unknown): EndpointFormValues {
  const values = (body ?? {}) as Record<string, unknown>;
  const one = (name: string) => (typeof values[name] === 'string' ? values[name] : '');
  const raw = values.types;
  const types = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw.filter((t) => typeof t === 'string') : [];
  return {
    url: one('url').trim(),
    commodities: one('commodities').trim(),
    typesMode: one('types_mode') === 'some' ? 'some' : 'all',
    types,
    enabled: one('enabled') === 'on',
  };
}

const TOPICS: readonly string[] = AVAILABLE_SERIES_TYPES;
const isTopic = (value: string): value is NotificationTopic => TOPICS.includes(value);

/** How the form names the reports of each COT layout, in the reason a topic is unavailable. */
const COT_REPORTS = {
  legacy: 'legacy COT reports',
  disaggregated: 'disaggregated COT reports',
  cit: 'the COT supplement (CIT) reports',
} as const;

/** The topics a plan lacks (its COT datasets: legacy in either scope and cit, disaggregated in either), each with why. */
export function topicsNotInPlan(plan: Plan): Map<NotificationTopic, string> {
  const out = new Map<NotificationTopic, string>();
  for (const topic of AVAILABLE_SERIES_TYPES) {
    if (!topicAllowed(PLANS[plan], topic)) {
      const format = COT_DATASETS[cotDatasetOfType(topic) ?? 'legacy'].format;
      const what = COT_REPORTS[format];
      out.set(topic, `The ${plan} plan does not include ${what}.`);
    }
  }
  return out;
}

/**
 * The URL field's own rules (before the address check): present, an absolute https:// URL without
 * credentials or fragment, of bounded length. Returns the problem, or null.
 */
export function urlShapeProblem(url: string): string | null {
  if (url === '') return 'Enter the URL of your receiver, like https://example.com/hooks/cds.';
  if (url.length > MAX_WEBHOOK_URL_LENGTH) return `Use a URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters.`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'This is not a valid URL: write it in full, like https://example.com/hooks/cds.';
  }
  if (parsed.protocol !== 'https:') {
    return `Webhooks are delivered over HTTPS only: the URL must start with https:// (not ${parsed.protocol}//).`;
  }
  if (parsed.hostname === '') return 'The URL has no host name.';
  if (parsed.username !== '' || parsed.password !== '') {
    return 'Leave user names and passwords out of the URL: verify deliveries by their signature instead.';
  }
  if (parsed.hash !== '') return 'Leave the #fragment out: it is never sent to a server.';
  return null;
}

/**
 * The commodities field: "all" (or empty) is null; otherwise a comma list of commodity ids, any
 * case, spaces allowed around commas; returned upper-cased, in the order given.
 */
export function parseCommodities(raw: string): { ids: string[] | null } | { problem: string } {
  const text = raw.trim();
  if (text === '' || text.toLowerCase() === 'all') return { ids: null };
  const names = text.split(',').map((n) => n.trim().toUpperCase());
  if (names.length > MAX_EVENT_FILTER_COMMODITIES) {
    return { problem: `List at most ${MAX_EVENT_FILTER_COMMODITIES} commodities, or write "all".` };
  }
  const seen = new Set<string>();
  for (const name of names) {
    if (name === '') return { problem: 'Remove the empty entry between two commas.' };
    if (name.length > MAX_COMMODITY_ID_LENGTH || !COMMODITY_ID_PATTERN.test(name)) {
      return {
        problem: `“${name.slice(0, 40)}” is not a commodity id: ids are words in capitals joined by underscores, like CORN or CRUDE_OIL_WTI.`,
      };
    }
    if (seen.has(name)) return { problem: `${name} is listed twice.` };
    seen.add(name);
  }
  return { ids: [...seen] };
}

/** The types: null for "all the plan includes", else the ticked topics, each one the plan includes. */
export function parseTypes(
  values: Pick<EndpointFormValues, 'typesMode' | 'types'>,
  plan: Plan,
): { types: NotificationTopic[] | null } | { problem: string } {
  if (values.typesMode === 'all') return { types: null };
  if (values.types.length === 0) return { problem: 'Tick at least one type, or choose “every type my plan includes”.' };
  const lacking = topicsNotInPlan(plan);
  const seen = new Set<NotificationTopic>();
  for (const value of values.types) {
    if (!isTopic(value)) return { problem: `“${value.slice(0, 40)}” is not a notification type.` };
    const why = lacking.get(value);
    if (why !== undefined) return { problem: `${why} Untick ${value} or upgrade the plan.` };
    seen.add(value);
  }
  // In the order of the form, whatever order the browser sent them in.
  return { types: AVAILABLE_SERIES_TYPES.filter((t) => seen.has(t)) };
}
