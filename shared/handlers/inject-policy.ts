// What a caller of inject may not send, though the event schema allows it:
// - the fields only the system sets (attempt, notBefore, firstAttemptAt). Otherwise a caller could park an event
//   in 2099, skip its retries or stretch its retry horizon;
// - the sources only the system uses (sweep, audit). They tell operators which part of the system acted.
import type { FieldError } from '../errors/field-errors';
import { INJECTABLE_SOURCES } from '../schemas/event-sources';

const SYSTEM_FIELDS: Record<string, string> = {
  attempt: 'is set by the system when it re-enqueues an event, never by a caller',
  notBefore: 'is set by the system when it schedules a retry, never by a caller',
  firstAttemptAt: 'is set by the system when it first schedules a retry, never by a caller',
  contested: 'is set by the watcher from Audit Trail, never by a caller',
};

export interface InjectPolicyCheck {
  errors: FieldError[];
  /** The value without what was refused (source back to the default), so the schema reports only the rest. */
  rest: unknown;
}

/** Refuses system-only fields and sources in an injected event (a decoded JSON value). */
export function checkInjectPolicy(value: unknown): InjectPolicyCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { errors: [], rest: value };
  const input = value as Record<string, unknown>;
  const errors: FieldError[] = [];
  const rest: Record<string, unknown> = { ...input };
  for (const [field, why] of Object.entries(SYSTEM_FIELDS)) {
    if (!Object.hasOwn(input, field)) continue;
    errors.push({ path: `event.${field}`, message: why, fix: `remove "${field}"` });
    delete rest[field];
  }
  const source = input.source;
  if (source !== undefined && !(INJECTABLE_SOURCES as readonly unknown[]).includes(source)) {
    errors.push({
      path: 'event.source',
      message: 'is not a source a caller may use (sweep and audit events come from the system itself)',
      received: (JSON.stringify(source) ?? String(source)).slice(0, 80),
      allowed: [...INJECTABLE_SOURCES],
      fix: `use one of: ${INJECTABLE_SOURCES.join(', ')} (or leave it out: manual)`,
    });
    rest.source = 'manual';
  }
  return { errors, rest };
}
