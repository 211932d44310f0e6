/** What a subscription may ask for: the reference's subscribable event types that Tessera emits. */
export const EVENT_TYPES = [
  "webhooks.subscriptions.tested",
  "testsets.revisions.committed",
  "workflows.revisions.committed",
  "environments.revisions.committed",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Every event type the reference lets a subscription name: its read events (`*.fetched`, `*.queried`…) are accepted
 * so that its clients' subscriptions are valid here, though Tessera emits only `EVENT_TYPES`.
 */
export const SUBSCRIBABLE_EVENT_TYPES: readonly string[] = [
  ...EVENT_TYPES,
  "traces.fetched", "traces.queried", "testcases.fetched", "testcases.queried",
  ...["queries", "testsets", "workflows", "environments"].flatMap((domain) =>
    ["retrieved", "fetched", "queried", "logged", "committed"].map((action) => `${domain}.revisions.${action}`)),
].filter((t, i, all) => all.indexOf(t) === i);

/** A fact about one project, as stored and as a subscriber's payload context reads it. */
export interface ProjectEvent {
  event_id: string;
  event_type: EventType;
  timestamp: string;
  created_at: string;
  attributes: Record<string, unknown>;
}
