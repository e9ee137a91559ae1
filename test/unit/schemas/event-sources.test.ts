// The one table of event sources (shared/schemas/event-sources.ts), and the places that read it.
import { describe, expect, it } from 'vitest';
import { checkInjectPolicy } from '../../../shared/handlers/inject-policy';
import { eventSchema } from '../../../shared/schemas/event';
import { EVENT_SOURCE, EVENT_SOURCES, INJECTABLE_SOURCES } from '../../../shared/schemas/event-sources';

describe('the event sources', () => {
  it('callers may send manual and instance-replacement; sweep and audit are the system’s own', () => {
    expect(INJECTABLE_SOURCES).toEqual(['manual', 'instance-replacement']);
    expect(EVENT_SOURCES.filter((source) => !EVENT_SOURCE[source].injectable)).toEqual(['sweep', 'audit']);
  });

  it('the event schema takes every source and no other', () => {
    expect(eventSchema.shape.source.options).toEqual(EVENT_SOURCES);
    for (const source of EVENT_SOURCES)
      expect(eventSchema.shape.source.description).toContain(`${source}: ${EVENT_SOURCE[source].meaning}`);
  });

  it.each(EVENT_SOURCES)('inject lets %s through only when the table says a caller may send it', (source) => {
    const { errors } = checkInjectPolicy({ source });
    expect(errors.length === 0).toBe(EVENT_SOURCE[source].injectable);
    if (errors.length > 0)
      expect(errors[0]).toMatchObject({
        path: 'event.source',
        allowed: ['manual', 'instance-replacement'],
        fix: 'use one of: manual, instance-replacement (or leave it out: manual)',
      });
  });
});
