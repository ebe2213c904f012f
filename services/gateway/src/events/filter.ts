import {
  AVAILABLE_SERIES_TYPES,
  COT_DATASETS,
  cotDatasetOfType,
  PLANS,
  topicAllowed,
  type NotificationTopic,
  type Plan,
} from '@cds/contracts';
import { cotPlanNeeded } from '../plans/plan-rules.ts';

/** What a stream receives: the commodities (all when undefined) and the topics. */
export interface StreamFilter {
  commodities: ReadonlySet<string> | undefined;
  topics: ReadonlySet<NotificationTopic>;
}

export type TopicsDecision =
  { ok: true; topics: ReadonlySet<NotificationTopic> } | { ok: false; topic: NotificationTopic };

/**
 * The topics a stream of this plan receives: the ones asked for (a COT dataset the plan does not
 * read refuses the whole request, naming it), or without `types` every topic the plan may read.
 */
export function topicsFor(plan: Plan, requested: readonly NotificationTopic[] | undefined): TopicsDecision {
  const rules = PLANS[plan];
  if (requested === undefined)
    return { ok: true, topics: new Set(AVAILABLE_SERIES_TYPES.filter((t) => topicAllowed(rules, t))) };
  for (const topic of requested) if (!topicAllowed(rules, topic)) return { ok: false, topic };
  return { ok: true, topics: new Set(requested) };
}

export function matches(filter: StreamFilter, change: { commodity: string; topic: NotificationTopic }): boolean {
  return (
    filter.topics.has(change.topic) && (filter.commodities === undefined || filter.commodities.has(change.commodity))
  );
}

/** The plan that reads a COT dataset, for the 403's message. */
export function forbiddenTopicMessage(topic: NotificationTopic): string {
  const dataset = cotDatasetOfType(topic);
  const needs = dataset === undefined ? 'Professional' : cotPlanNeeded(COT_DATASETS[dataset].format);
  return `Notifications about ${topic} need the ${needs} plan or above: leave it out of 'types'.`;
}

/**
 * A stream's slot in the account's set of open streams (Redis, or this replica's memory):
 * `<start ms>:<replica>:<stream number>:<COT layouts asked for explicitly>` (L: a legacy layout,
 * legacy in either scope or cit, the cotLegacy rule; D: disaggregated in either scope), so every
 * replica can tell, from the set alone, which streams are newest and which a plan change closes as
 * forbidden.
 */
export function slotMember(
  startMs: number,
  replica: string,
  n: number,
  requested: readonly NotificationTopic[] | undefined,
): string {
  const layouts = new Set<string>();
  for (const topic of requested ?? []) {
    const dataset = cotDatasetOfType(topic);
    if (dataset !== undefined) layouts.add(COT_DATASETS[dataset].format === 'disaggregated' ? 'D' : 'L');
  }
  const flags = ['L', 'D'].filter((f) => layouts.has(f)).join('') || '-';
  return `${String(startMs).padStart(15, '0')}:${replica}:${n}:${flags}`;
}

/** Whether a stream of this slot asked for a COT format `plan` does not read (a plan change ends it). */
export function slotForbiddenUnder(member: string, plan: Plan): boolean {
  const flags = member.slice(member.lastIndexOf(':') + 1);
  const rules = PLANS[plan];
  return (flags.includes('L') && !rules.cotLegacy) || (flags.includes('D') && !rules.cotDisaggregated);
}

/**
 * After a plan change: the account's open streams beyond the new plan's limit, newest first (the
 * ones the plan change also ends as forbidden do not count). Every replica computes the same list
 * from the same set and ends its own streams on it.
 */
export function excessSlots(members: readonly string[], plan: Plan, limit: number): string[] {
  const staying = members.filter((m) => !slotForbiddenUnder(m, plan)).sort();
  return staying.slice(limit).reverse();
}
