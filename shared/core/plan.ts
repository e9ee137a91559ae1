import { DEFAULT_HEALTH_CHECK } from '../schemas/api-defaults';
import type { BackendSpec, HealthCheckSpec, HttpCheckSpec } from '../schemas/target';
import type {
  Action,
  BackendOptions,
  DesiredBackend,
  DuplicateBackends,
  FieldChange,
  ObservedBackend,
  ObservedHealthCheck,
  ObservedHttpCheck,
} from './model';
import { normalisePool, poolDiff, samePool } from './pool';

const MANAGED_SPEC_FIELDS = ['forwardProtocol', 'forwardPort', 'forwardPortAlgorithm', 'stickySessions', 'proxyProtocol'] as const;
/** Backend fields compared only when the target names them (a full PUT sends the LB's own value of the others back). */
export const OPTIONAL_SPEC_FIELDS = [
  'onMarkedDownAction',
  'timeoutServerMs',
  'timeoutConnectMs',
  'timeoutTunnelMs',
  'maxRetries',
  'redispatchAttemptCount',
  'maxConnections',
  'timeoutQueueMs',
] as const satisfies readonly (keyof BackendOptions & keyof BackendSpec)[];
const HEALTH_CHECK_FIELDS = [
  'type',
  'port',
  'checkDelayMs',
  'checkTimeoutMs',
  'checkMaxRetries',
  'checkSendProxy',
  'transientCheckDelayMs',
] as const satisfies readonly (keyof HealthCheckSpec & keyof ObservedHealthCheck)[];
const HTTP_CHECK_FIELDS = ['uri', 'method', 'code', 'hostHeader', 'sni'] as const satisfies readonly (keyof HttpCheckSpec &
  keyof ObservedHttpCheck)[];

/** The fields of a value that are set: what a target names. */
function named<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Every field the planner compares for this spec: the managed ones and the optional and health-check fields it names. */
export function comparedFields(spec: BackendSpec): string[] {
  const wanted = spec.healthCheck;
  return [
    ...MANAGED_SPEC_FIELDS,
    ...(spec.stickySessionsCookieName !== undefined ? ['stickySessionsCookieName'] : []),
    ...OPTIONAL_SPEC_FIELDS.filter((field) => spec[field] !== undefined),
    ...HEALTH_CHECK_FIELDS.filter((field) => wanted?.[field] !== undefined).map((field) => `healthCheck.${field}`),
    ...HTTP_CHECK_FIELDS.filter((field) => wanted?.http?.[field] !== undefined).map((field) => `healthCheck.http.${field}`),
  ];
}

/**
 * What a CreateBackend or an UpdateHealthCheck sends: the LB's own check, with the fields the target names on top.
 * A create starts from TCP on the forward port, with the API's defaults. A change of type replaces the config, so the
 * old type's config is not sent. An http(s) config keeps what the LB had of it; a new one uses GET unless the target
 * names a method.
 */
export function writtenHealthCheck(spec: BackendSpec, observed: ObservedHealthCheck | undefined): ObservedHealthCheck {
  const base: ObservedHealthCheck = observed ?? {
    type: 'tcp',
    port: spec.forwardPort,
    ...DEFAULT_HEALTH_CHECK,
    checkSendProxy: false,
    passthrough: {},
  };
  const { http: wantedHttp, ...wanted } = named(spec.healthCheck);
  const { http: keptHttp, ...kept } = base;
  const type = wanted.type ?? base.type;
  const http = type === 'http' || type === 'https' ? httpCheck(type, keptHttp, wantedHttp) : undefined;
  return {
    ...kept,
    // UpdateHealthCheck requires both durations; one the API did not report takes the API's create default.
    checkDelayMs: base.checkDelayMs ?? DEFAULT_HEALTH_CHECK.checkDelayMs,
    checkTimeoutMs: base.checkTimeoutMs ?? DEFAULT_HEALTH_CHECK.checkTimeoutMs,
    ...wanted,
    type,
    ...(http && { http }),
    passthrough: type === base.type ? base.passthrough : {},
  };
}

function httpCheck(type: 'http' | 'https', kept: ObservedHttpCheck | undefined, wanted: HttpCheckSpec | undefined): ObservedHttpCheck {
  const { sni, ...fields } = { method: 'GET', ...kept, ...named(wanted) } as ObservedHttpCheck;
  return type === 'https' && sni !== undefined ? { ...fields, sni } : fields;
}

/** Why a field would be written: the target's value differs; kOps' 0 ms health check is named as such. */
export function changeReason(field: string, from: unknown, to: unknown): string {
  const wanted = `the target asks ${JSON.stringify(to)}`;
  if ((field === 'healthCheck.checkDelayMs' || field === 'healthCheck.checkTimeoutMs') && from === 0) {
    return `${wanted}; 0 ms is what kOps creates: it passes 3000 and 1001 as Go durations (nanoseconds), which reach the API as 0 ms`;
  }
  return from === undefined ? `${wanted}; the LB has none set` : `${wanted}, the LB has ${JSON.stringify(from)}`;
}

const change = (field: string, from: unknown, to: unknown): FieldChange => ({ field, from, to, reason: changeReason(field, from, to) });

function specChanges(spec: BackendSpec, observed: ObservedBackend): FieldChange[] {
  const changes: FieldChange[] = MANAGED_SPEC_FIELDS.filter((field) => spec[field] !== observed[field]).map((field) =>
    change(field, observed[field], spec[field]),
  );
  if (spec.stickySessionsCookieName !== undefined && spec.stickySessionsCookieName !== observed.stickySessionsCookieName) {
    changes.push(change('stickySessionsCookieName', observed.stickySessionsCookieName, spec.stickySessionsCookieName));
  }
  for (const field of OPTIONAL_SPEC_FIELDS) {
    if (spec[field] !== undefined && spec[field] !== observed[field]) changes.push(change(field, observed[field], spec[field]));
  }
  return changes;
}

/** The optional fields a full PUT sends: the target's where it names them, the LB's own elsewhere (a null left out). */
function writtenOptions(spec: BackendSpec, observed: BackendOptions): BackendOptions {
  const options: Record<string, unknown> = {};
  for (const field of OPTIONAL_SPEC_FIELDS) {
    const value = spec[field] ?? observed[field];
    if (value !== undefined) options[field] = value;
  }
  return options as BackendOptions;
}

/** Only the fields the target names are compared; the rest of the observed check is kept. */
function healthCheckChanges(wanted: HealthCheckSpec, observed: ObservedHealthCheck | undefined): FieldChange[] {
  return [
    ...HEALTH_CHECK_FIELDS.filter((field) => wanted[field] !== undefined && wanted[field] !== observed?.[field]).map((field) =>
      change(`healthCheck.${field}`, observed?.[field], wanted[field]),
    ),
    ...HTTP_CHECK_FIELDS.filter((field) => wanted.http?.[field] !== undefined && wanted.http[field] !== observed?.http?.[field]).map(
      (field) => change(`healthCheck.http.${field}`, observed?.http?.[field], wanted.http?.[field]),
    ),
  ];
}

/** Actions that bring one observed backend (or its absence) to the desired one. Pure. */
export function planBackend(desired: DesiredBackend, observed: ObservedBackend | undefined): Action[] {
  const { spec } = desired;
  const pool = normalisePool(desired.pool);
  if (!observed) {
    if (!spec.createIfMissing) return [];
    return [
      {
        kind: 'CreateBackend',
        backend: spec.name,
        spec,
        options: writtenOptions(spec, {}),
        healthCheck: writtenHealthCheck(spec, undefined),
        pool,
      },
    ];
  }
  const actions: Action[] = [];
  const changes = specChanges(spec, observed);
  if (changes.length > 0) {
    actions.push({
      kind: 'UpdateBackend',
      backend: spec.name,
      backendId: observed.id,
      spec,
      options: writtenOptions(spec, observed),
      passthrough: observed.passthrough,
      changes,
    });
  }
  const hcChanges = healthCheckChanges(spec.healthCheck ?? {}, observed.healthCheck);
  if (hcChanges.length > 0) {
    actions.push({
      kind: 'UpdateHealthCheck',
      backend: spec.name,
      backendId: observed.id,
      healthCheck: writtenHealthCheck(spec, observed.healthCheck),
      changes: hcChanges,
    });
  }
  if (!samePool(pool, observed.pool)) {
    actions.push({ kind: 'SetBackendServers', backend: spec.name, backendId: observed.id, pool, ...poolDiff(observed.pool, pool) });
  }
  return actions;
}

/** plan(desired, observed) -> actions, for every backend of a target, in the target's order. Pure. */
export function plan(desired: readonly DesiredBackend[], observed: ReadonlyMap<string, ObservedBackend>): Action[] {
  return desired.flatMap((backend) => planBackend(backend, observed.get(backend.spec.name)));
}

export interface DuplicateVerdict {
  backend: ObservedBackend;
  remove: boolean;
  reason: string;
}

/**
 * Which duplicates of a managed backend name can go. A duplicate goes only if all three are true:
 * - no frontend uses it;
 * - it has exactly the spec this tool would create, so it is ours (a create that committed after we stopped
 *   waiting, or a racing reconcile that never got to remove its own);
 * - it is older than the grace period, so we do not race a tool about to attach a frontend to a backend it just made.
 * The rest stay, and are reported.
 */
export function judgeDuplicates(spec: BackendSpec, duplicates: DuplicateBackends, now: number, graceMs: number): DuplicateVerdict[] {
  return duplicates.others.map((backend) => {
    if (duplicates.inUse.has(backend.id)) return { backend, remove: false, reason: 'a frontend uses it' };
    if (specChanges(spec, backend).length > 0)
      return { backend, remove: false, reason: 'its settings differ from the target (not made by this tool)' };
    const age = backend.createdAt ? now - Date.parse(backend.createdAt) : Number.POSITIVE_INFINITY;
    if (age < graceMs) return { backend, remove: false, reason: `it is younger than the ${graceMs} ms grace period` };
    return { backend, remove: true, reason: "unused duplicate with the target's own settings" };
  });
}

export interface JudgedDuplicates {
  duplicates: DuplicateBackends;
  verdicts: DuplicateVerdict[];
}

/** Judges every group of duplicates of a name the target manages. Pure. */
export function judgeAllDuplicates(
  desired: readonly DesiredBackend[],
  groups: readonly DuplicateBackends[],
  now: number,
  graceMs: number,
): JudgedDuplicates[] {
  return groups.flatMap((duplicates) => {
    const spec = desired.find((d) => d.spec.name === duplicates.name)?.spec;
    return spec ? [{ duplicates, verdicts: judgeDuplicates(spec, duplicates, now, graceMs) }] : [];
  });
}

/** DeleteDuplicateBackend actions for the duplicates judged removable. Pure. */
export function planDuplicateCleanup(judged: readonly JudgedDuplicates[]): Action[] {
  return judged.flatMap(({ duplicates, verdicts }) =>
    verdicts
      .filter((v) => v.remove)
      .map(
        (v): Action => ({ kind: 'DeleteDuplicateBackend', backend: duplicates.name, backendId: v.backend.id, keptId: duplicates.kept.id }),
      ),
  );
}
