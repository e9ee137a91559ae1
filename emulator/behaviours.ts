/**
 * The emulator's switches: the recorded pending window's length, and one switch per behaviour of the real
 * API that no recording shows (docs/emulator.md lists them, with what each setting answers). Set them with
 * `startEmulator({ behaviours })`, `handle.setBehaviours()` or `PUT /_emulator/behaviours`.
 */

/** The recorded windows run from about 30 ms to 400 ms (lb-backend-basic, lb-backend-health-check). */
export const RECORDED_INSTANCE_PENDING_MS = 400;

export interface EmulatorBehaviours {
  /** How long `lb.instances[].status` stays `pending` after a write that changes the LB's config. Recorded. */
  instancePendingMs: number;
  /**
   * Whether UpdateHealthCheck leaves the instances pending. Recorded: the next call finds them ready, though their
   * `updated_at` moved (lb-backend-health-check #26-#27, #45-#46), so a flip shorter than the call itself may happen.
   */
  pendingAfterHealthCheck: boolean;
  /** Backend writes while the LB itself is pending, migrating, to_create, creating, to_delete or deleting. */
  writesWhileTransient: 'refuse' | 'accept';
  /** Backend writes while the LB is `locked`: 423 `locked`, or 409. */
  writesWhileLocked: 'locked' | 'conflict';
  /** Backend writes while the LB is `stopped` or `error`. */
  writesWhileStopped: 'accept' | 'refuse';
  /** DeleteBackend on a backend some frontend sends traffic to: 412 `precondition_failed`, or the frontends go too. */
  deleteBackendInUse: 'refuse' | 'cascade';
  /** The same address twice in `server_ip`: kept once, or 400 `invalid_arguments`. */
  duplicateServerIps: 'dedupe' | 'refuse';
  /**
   * An optional field an UpdateBackend leaves out (or sends null): `reset` to what a create leaving it out gets (the
   * API reference: "the request type is PUT and not PATCH. You must set all parameters"), or `keep` the backend's
   * value. No recording tells: every recorded UpdateBackend sends the fields it changes. kOps' apply leaves out the
   * timeouts and counts (emulator/kops/apply.ts).
   */
  updateBackendLeftOut: 'reset' | 'keep';
  /**
   * An IPv6 address in `server_ip` (CreateBackend, SetBackendServers, AddBackendServers): taken as any other, or a 400
   * `invalid_arguments` naming each IPv6 entry. No recording shows an IPv6 pool member; Scaleway's docs say
   * `server_ip` holds IPv4 or IPv6 addresses, hence the default.
   */
  ipv6PoolMembers: 'accept' | 'refuse';
  /**
   * Opt-in: `server_ip` entries must be a seeded server's address or an IPAM address (400 otherwise), except on
   * LBs whose type is listed in `multiCloudLbTypes`.
   */
  strictBackendIps: boolean;
  /** LB commercial types treated as multi-cloud by `strictBackendIps` (compared case-insensitively). */
  multiCloudLbTypes: string[];
  /**
   * ListBackendStats (timing not recorded): a pool address of a running server reports `passed` this long after it is
   * both running and in the pool (`unknown` before). Default 0: at once (emulator/health.ts).
   */
  healthPassAfterMs: number;
  /** ... and an address whose server was deleted, stopped or is stopping reports `failed` this long after. Default 0. */
  healthFailAfterMs: number;
  /**
   * ListServers `tags=a,b`: `all` as the API reference documents it (a server carrying every tag exactly), `any`
   * (a server carrying one of them), `prefix` (every filter tag begins one of the server's tags). No recording
   * shows a multi-tag filter.
   */
  serverTagsFilter: 'all' | 'any' | 'prefix';
  /**
   * How many LB instances report each backend server in ListBackendStats: one item per address per instance. The
   * recording shows one instance; LBs have had two. `two_disagreeing`: the second is one change behind the first.
   */
  lbInstanceReports: 'one' | 'two' | 'two_disagreeing';
  /**
   * The Instance API's ServerAction `poweron` (a real API call, as kOps makes it): the server is `starting` this long,
   * then `running`. Recorded: about 5 s (instance-server-ips #88-#89). The control API's power actions are instant.
   */
  poweronMs: number;
  /**
   * The Instance API's ServerAction `terminate`: the server is `stopping` (`terminating`) with no public IP this long,
   * then gone (404). Recorded: 10 to 15 s (instance-server-ips #90-#94). The control API's removal is instant.
   */
  terminateMs: number;
}

export const DEFAULT_BEHAVIOURS: Readonly<EmulatorBehaviours> = Object.freeze({
  instancePendingMs: RECORDED_INSTANCE_PENDING_MS,
  pendingAfterHealthCheck: false,
  writesWhileTransient: 'refuse',
  writesWhileLocked: 'locked',
  writesWhileStopped: 'accept',
  deleteBackendInUse: 'refuse',
  duplicateServerIps: 'dedupe',
  updateBackendLeftOut: 'reset',
  ipv6PoolMembers: 'accept',
  strictBackendIps: false,
  multiCloudLbTypes: [],
  healthPassAfterMs: 0,
  healthFailAfterMs: 0,
  serverTagsFilter: 'all',
  lbInstanceReports: 'one',
  poweronMs: 5_000,
  terminateMs: 15_000,
});

/** The choices of each switch, for validation, docs and tests that run every setting. */
export const BEHAVIOUR_CHOICES = {
  pendingAfterHealthCheck: [false, true],
  writesWhileTransient: ['refuse', 'accept'],
  writesWhileLocked: ['locked', 'conflict'],
  writesWhileStopped: ['accept', 'refuse'],
  deleteBackendInUse: ['refuse', 'cascade'],
  duplicateServerIps: ['dedupe', 'refuse'],
  updateBackendLeftOut: ['reset', 'keep'],
  ipv6PoolMembers: ['accept', 'refuse'],
  strictBackendIps: [false, true],
  serverTagsFilter: ['all', 'any', 'prefix'],
  lbInstanceReports: ['one', 'two', 'two_disagreeing'],
} as const satisfies { [K in keyof EmulatorBehaviours]?: readonly EmulatorBehaviours[K][] };

export type SwitchName = keyof typeof BEHAVIOUR_CHOICES;

function isChoice(name: SwitchName, value: unknown): boolean {
  return (BEHAVIOUR_CHOICES[name] as readonly unknown[]).includes(value);
}

/** The settings that are a length of time in integer ms rather than a choice. */
const DURATION_SETTINGS = ['instancePendingMs', 'healthPassAfterMs', 'healthFailAfterMs', 'poweronMs', 'terminateMs'] as const;
type DurationSetting = (typeof DURATION_SETTINGS)[number];

/**
 * Checks a partial set of behaviours (from options, the control API or the CLI) and returns it typed.
 * Throws an Error naming the field and its allowed values.
 */
export function readBehaviours(input: unknown): Partial<EmulatorBehaviours> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Error('behaviours must be a JSON object');
  const out: Partial<EmulatorBehaviours> = {};
  for (const [name, value] of Object.entries(input)) {
    if ((DURATION_SETTINGS as readonly string[]).includes(name)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
        throw new Error(`${name} must be a non-negative integer (ms)`);
      out[name as DurationSetting] = value;
    } else if (name === 'multiCloudLbTypes') {
      if (!Array.isArray(value) || !value.every((t) => typeof t === 'string'))
        throw new Error('multiCloudLbTypes must be a list of LB types');
      out.multiCloudLbTypes = [...(value as string[])];
    } else if (name in BEHAVIOUR_CHOICES) {
      const key = name as SwitchName;
      if (!isChoice(key, value))
        throw new Error(`${key} must be one of ${BEHAVIOUR_CHOICES[key].map((c) => JSON.stringify(c)).join(', ')}`);
      (out as Record<string, unknown>)[key] = value;
    } else {
      throw new Error(
        `unknown behaviour "${name}"; known: ${[...DURATION_SETTINGS, 'multiCloudLbTypes', ...Object.keys(BEHAVIOUR_CHOICES)].join(', ')}`,
      );
    }
  }
  return out;
}

export function withDefaults(partial: Partial<EmulatorBehaviours> = {}): EmulatorBehaviours {
  return { ...DEFAULT_BEHAVIOURS, multiCloudLbTypes: [...DEFAULT_BEHAVIOURS.multiCloudLbTypes], ...readBehaviours(partial) };
}

/**
 * The LB's health checks as the demo world runs them (`npm start`, `lbsync emulator`): a new member passes 8 s after
 * its server runs in the pool, and the member of a server gone keeps passing 20 s (kOps' check: 3 s x 5 retries, and
 * more), so a replacement shows make-before-break: the old member held, `~ leaves later`, until its successor passes.
 */
export const DEMO_HEALTH_TIMING = { healthPassAfterMs: 8_000, healthFailAfterMs: 20_000 } as const;
