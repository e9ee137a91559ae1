// Every source an event may name, once: what it means, and whether a caller may send it through inject. Callers may
// not send the system's own sources, which tell operators which part of the system acted. The event schema, inject's
// policy, the log schema, `lbsync inject --source` and the configuration reference read this table.

interface EventSourceSpec {
  /** A caller may send it to inject (or `lbsync inject`); the others are the system's own. */
  injectable: boolean;
  /** What produces it, as the configuration reference says. */
  meaning: string;
}

export const EVENT_SOURCE = {
  manual: { injectable: true, meaning: "an operator's event (`lbsync inject`), the default at inject" },
  'instance-replacement': { injectable: true, meaning: "a new server's boot hook, through inject" },
  sweep: { injectable: false, meaning: 'the sweep, every target on a schedule' },
  audit: { injectable: false, meaning: 'the watcher, after a change Audit Trail recorded' },
} as const satisfies Record<string, EventSourceSpec>;

export type EventSource = keyof typeof EVENT_SOURCE;
export type InjectableSource = {
  [S in EventSource]: (typeof EVENT_SOURCE)[S]['injectable'] extends true ? S : never;
}[EventSource];

export const EVENT_SOURCES = Object.keys(EVENT_SOURCE) as [EventSource, ...EventSource[]];
export const INJECTABLE_SOURCES = EVENT_SOURCES.filter((source): source is InjectableSource => EVENT_SOURCE[source].injectable);

/** The sources and what each means, as the event schema describes its `source`. */
export function eventSourcesDescription(): string {
  const each = EVENT_SOURCES.map((source) => `${source}: ${EVENT_SOURCE[source].meaning}.`);
  return ['what produced the event.', ...each, `Callers may send ${INJECTABLE_SOURCES.join(' or ')}.`].join(' ');
}
