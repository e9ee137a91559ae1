/**
 * Replays the recorded Scaleway API traffic (test/fixtures/scaleway-api) against the emulator. For every
 * recorded call to a route the emulator serves, the emulator is seeded with the resources the recording knew of
 * at that point (ids kept), the recorded request is sent, and the answer must match the recording:
 * - the status and the Content-Type (present or absent), X-Total-Count and Link where recorded;
 * - the same JSON key paths, and the same values at every path except those listed in VOLATILE (with why);
 *   error bodies (the untyped `{"message":"lbs not Found"}` 404s...) in full;
 * - `lb.status` and `lb.instances[].status` in every write's answer (the pending flips), and after a write,
 *   a read the recording shows `pending` must be pending too (the emulator's own window is carried over);
 * - every recorded 429 (routes the emulator does not serve included) against the emulator's default 429
 *   fault: status, no Content-Type, `X-Envoy-Ratelimited`, empty body.
 */
import { createClient } from '@scaleway/sdk-client';
import { Lbv1 } from '@scaleway/sdk-lb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startEmulator,
  type EmulatorHandle,
  type EmulatorSeed,
  type SeedBackend,
  type SeedFrontend,
  type SeedLbPrivateNetwork,
} from '../../../emulator';
import {
  ACCOUNT_CASSETTE,
  cassetteNames,
  ERROR_BODY_CASSETTE,
  jsonBody,
  readCassette,
  readCassetteFile,
  type Interaction,
} from '../../support/cassettes';
import { recordDoctorRun } from '../../support/doctor-recording';

type Json = Record<string, unknown>;

/** Key paths the real API sends only sometimes; their absence in the emulator's answer is accepted. */
const OPTIONAL_RECORDED_PATHS = new Set(['server.admin_password_encryption_ssh_key_id']);

/**
 * Values not compared, by last key-path segment, each with the reason. Everything else is compared exactly.
 */
const VOLATILE: Record<string, string> = {
  created_at: 'clock of the recording vs clock of the replay (entities created during the replay)',
  updated_at: 'clock of the recording vs clock of the replay',
  creation_date: 'clock of the recording vs clock of the replay',
  modification_date: 'clock of the recording vs clock of the replay',
  server_state_changed_at: 'clock of the recording vs clock of the replay (its form and range are checked apart)',
};
/** Whole key paths not compared, with the reason. */
const VOLATILE_PATHS: Record<string, string> = {
  ...Object.fromEntries(
    [
      'image.id',
      'image.name',
      'image.root_volume.id',
      'volumes.0.id',
      'security_group.id',
      'security_group.name',
      'location.cluster_id',
      'location.hypervisor_id',
      'location.node_id',
    ].flatMap((field) => [
      [
        `server.${field}`,
        'images, volumes, security groups and placement are not modelled (the emulator fills them in); nothing reads them',
      ],
      [`servers[].${field}`, 'idem, in lists'],
    ]),
  ),
  'server.private_nics[].ipam_ip_ids[]': "derived from the IPAM addresses the recording has listed by then, in the IPAM API's order",
  'servers[].private_nics[].ipam_ip_ids[]': 'idem, in lists',
  ...Object.fromEntries(
    ['public_ip.id', 'public_ip.ipam_id', 'public_ips[].id', 'public_ips[].ipam_id'].flatMap((field) => [
      [
        `server.${field}`,
        "a server's flexible IP ids are not seeded (the seed names the address only; the emulator gives ipam_id = id, as the Terraform recordings show, the CLI's older ones do not)",
      ],
      [`servers[].${field}`, 'idem, in lists'],
    ]),
  ),
  'backend_servers_stats[].instance_id': "the LB's instances are not seeded (and the recorded one is not an id GetLb lists in instances[])",
  id: 'a backend created during the replay gets a new id',
  'instances[].id': 'the LB instance is not seeded from the recording (no API shows it but GetLb)',
  'lb.instances[].id': 'idem, embedded',
  'backend.lb.instances[].id': 'idem, embedded',
  'frontends[].backend.lb.instances[].id': 'idem, embedded',
  'frontends[].lb.instances[].id': 'idem, embedded',
  'lbs[].instances[].id': 'idem, in lists',
  'backends[].lb.instances[].id': 'idem, in lists',
  'ip[].id': 'the LB flexible IP id is not seeded (the seed names the address only)',
  'lb.ip[].id': 'idem, embedded',
  'lbs[].ip[].id': 'idem, in lists',
  'backends[].lb.ip[].id': 'idem, in lists',
  'frontends[].lb.ip[].id': 'idem, embedded',
  'frontends[].backend.lb.ip[].id': 'idem, embedded',
  'private_network[].lb.ip[].id': 'idem, embedded',
};
/**
 * What one cassette cannot be compared on, with the reason: values that follow from how its servers were created
 * or stopped, which a seed does not carry, keys the API added after it was recorded, and keys the emulator does not
 * give for a state it does not play.
 */
interface CassetteLimits {
  values: Record<string, string>;
  newerKeys: string[];
  missingKeys?: string[];
}
const REBOOT =
  'a reboot (ServerAction #16) passes through `stopping` and `starting`, `rebooting`, on its node; a seed carries the state alone, and the emulator plays no reboot: it shows a stopping server as a terminate leaves it, a starting one as a power-on does (unplaced); nothing reads it';
/** A CLI server: made with a dynamic IP required, and powered off (not terminated) at the end of its test. */
const CLI_SERVER_VALUES: Record<string, string> = {
  'server.dynamic_ip_required':
    "the CLI creates its servers with a dynamic IP required; the emulator's are created as kOps and Terraform create them (false, every other recording); nothing reads it",
  'servers[].dynamic_ip_required': 'idem, in lists',
  'server.state_detail':
    'a poweroff stops the CLI\'s server ("stopping"); the emulator shows a stopping server as a terminate leaves it ("terminating", instance-data-source-servers-basic), the way kOps removes servers',
};
/**
 * `lbsync doctor --record` replaces MAC addresses, and the link-local addresses made from them, with stand-ins of
 * their own; a routed IPv6's gateway is the link-local EUI-64 of the MAC after the server's, so the emulator's differs.
 */
const STAND_IN_MAC = 'the recording replaces the MAC and the gateway made from it with stand-ins of their own (docs/emulator.md)';
const CASSETTE_LIMITS: Record<string, CassetteLimits> = {
  'doctor --record': {
    values: { 'server.public_ips[].gateway': STAND_IN_MAC, 'servers[].public_ips[].gateway': STAND_IN_MAC },
    newerKeys: [],
  },
  // Recorded 2025-11-04: the Terraform recordings (2026-07) show `dns`, which the emulator sends.
  'cli-instance-test-create-server-ips-with-ipv6-and-ipv4': { values: CLI_SERVER_VALUES, newerKeys: ['server.dns'] },
  'instance-action-server-basic': {
    values: { 'server.state_detail': REBOOT, 'server.location.zone_id': REBOOT, 'server.location.platform_id': REBOOT },
    newerKeys: [],
    missingKeys: ['zone_id', 'platform_id', 'cluster_id', 'hypervisor_id', 'node_id'].map((key) => `server.location.${key}`),
  },
  ...Object.fromEntries(
    [
      'cli-lb-test-get-stats-simple',
      'cli-lb-test-add-backend-servers-with-instance-tag',
      'cli-lb-test-add-backend-servers-with-instance-id-public-ip',
    ].map((cassette) => [
      cassette,
      {
        values: CLI_SERVER_VALUES,
        // Recorded 2025-01; the Terraform recordings (later) show these keys, and the emulator sends them.
        newerKeys: [
          ...['volumes.0.state', 'filesystems', 'end_of_service', 'dns'].flatMap((key) => [`server.${key}`, `servers[].${key}`]),
          'host',
        ],
      },
    ]),
  ),
};

/** Instance statuses are compared by their own rules (the flips), not as plain values. */
const INSTANCE_STATUS = /(^|\.)instances\[\]\.status$/;

// ---- which recorded routes the emulator serves ----

const UUID = '[0-9a-f-]{36}';
const SERVED: { method: string; pattern: RegExp }[] = [
  { method: 'GET', pattern: /^\/lb\/v1\/zones\/[^/]+\/lbs$/ },
  { method: 'GET', pattern: new RegExp(`^/lb/v1/zones/[^/]+/lbs/${UUID}$`) },
  { method: 'GET', pattern: new RegExp(`^/lb/v1/zones/[^/]+/lbs/${UUID}/(backends|frontends|stats|backend-stats|private-networks)$`) },
  { method: 'POST', pattern: new RegExp(`^/lb/v1/zones/[^/]+/lbs/${UUID}/backends$`) },
  { method: 'GET', pattern: new RegExp(`^/lb/v1/zones/[^/]+/backends/${UUID}$`) },
  { method: 'PUT', pattern: new RegExp(`^/lb/v1/zones/[^/]+/backends/${UUID}$`) },
  { method: 'DELETE', pattern: new RegExp(`^/lb/v1/zones/[^/]+/backends/${UUID}$`) },
  { method: 'PUT', pattern: new RegExp(`^/lb/v1/zones/[^/]+/backends/${UUID}/(servers|healthcheck)$`) },
  { method: 'POST', pattern: new RegExp(`^/lb/v1/zones/[^/]+/backends/${UUID}/servers$`) },
  { method: 'GET', pattern: /^\/instance\/v1\/zones\/[^/]+\/servers$/ },
  { method: 'GET', pattern: new RegExp(`^/instance/v1/zones/[^/]+/servers/${UUID}$`) },
  { method: 'GET', pattern: /^\/ipam\/v1\/regions\/[^/]+\/ips$/ },
];

function isServed(method: string, path: string): boolean {
  return SERVED.some((route) => route.method === method && route.pattern.test(path));
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

// ---- what the recording knows about the world, kept up to date interaction by interaction ----

class RecordedWorld {
  readonly lbs = new Map<string, Json>();
  readonly backends = new Map<string, Json>();
  readonly frontends = new Map<string, { lbId: string; frontend: SeedFrontend }>();
  /** Each LB's private-network attachments, as its latest ListLbPrivateNetworks answered them. */
  readonly attachments = new Map<string, SeedLbPrivateNetwork[]>();
  readonly servers = new Map<string, Json>();
  readonly ips = new Map<string, Json>();
  /** Private network of IPAM IPs, learnt from the filters of recorded ListIPs calls. */
  readonly ipNetworks = new Map<string, string>();

  learn(interaction: Interaction): void {
    const { url } = interaction;
    const path = url.pathname;
    const body = jsonBody(interaction.responseBody);
    const idInPath = (segment: string): string | undefined => new RegExp(`/${segment}/(${UUID})`).exec(path)?.[1];
    if (interaction.code === 404) {
      if (/\/lb\/v1\/zones\/[^/]+\/lbs\/[^/]+$/.test(path)) this.lbs.delete(idInPath('lbs') ?? '');
      if (/\/backends\/[^/]+$/.test(path)) this.backends.delete(idInPath('backends') ?? '');
      if (/\/frontends\/[^/]+$/.test(path)) this.frontends.delete(idInPath('frontends') ?? '');
      if (/\/instance\/v1\/zones\/[^/]+\/servers\/[^/]+$/.test(path)) this.servers.delete(idInPath('servers') ?? '');
      return;
    }
    if (interaction.method === 'DELETE' && interaction.code === 204) {
      if (/\/lb\/v1\/zones\/[^/]+\/backends\/[^/]+$/.test(path)) this.backends.delete(idInPath('backends') ?? '');
      if (/\/lb\/v1\/zones\/[^/]+\/frontends\/[^/]+$/.test(path)) this.frontends.delete(idInPath('frontends') ?? '');
      if (/\/ipam\/v1\/regions\/[^/]+\/ips\/[^/]+$/.test(path)) this.ips.delete(idInPath('ips') ?? '');
      return;
    }
    if (!body || interaction.code >= 300) return;
    if (path.startsWith('/lb/')) this.learnLb(path, body);
    if (/^\/instance\/v1\/zones\/[^/]+\/servers/.test(path) && !path.endsWith('/user_data') && !path.endsWith('/action')) {
      const servers = Array.isArray(body.servers) ? (body.servers as Json[]) : isObject(body.server) ? [body.server] : [];
      for (const server of servers) this.servers.set(String(server.id), server);
    }
    if (/^\/ipam\/v1\/regions\/[^/]+\/ips/.test(path)) {
      const ips = Array.isArray(body.ips) ? (body.ips as Json[]) : typeof body.address === 'string' ? [body] : [];
      const network = url.searchParams.get('private_network_id');
      for (const ip of ips) {
        this.ips.set(String(ip.id), ip);
        if (network) this.ipNetworks.set(String(ip.id), network);
      }
    }
  }

  private learnBackend(backend: Json): void {
    const { lb, ...rest } = backend;
    if (isObject(lb)) this.learnLbRecord(lb);
    this.backends.set(String(backend.id), { ...rest, lb_id: isObject(lb) ? lb.id : undefined });
  }

  /** An LB as embedded in a frontend may come without its instances; keep what a GetLb told. */
  private learnLbRecord(lb: Json): void {
    this.lbs.set(String(lb.id), lb);
  }

  private learnLb(path: string, body: Json): void {
    if (/\/lbs\/[^/]+\/private-networks$/.test(path) && Array.isArray(body.private_network)) {
      const lbId = /\/lbs\/([^/]+)\//.exec(path)?.[1] ?? '';
      this.attachments.set(
        lbId,
        (body.private_network as Json[]).map((a) => ({
          privateNetworkId: String(a.private_network_id),
          status: a.status as SeedLbPrivateNetwork['status'],
          ipamIds: a.ipam_ids as string[],
          createdAt: String(a.created_at),
        })),
      );
      return;
    }
    if (/\/backends\/[^/]+\/healthcheck$/.test(path)) {
      const backend = this.backends.get(/\/backends\/([^/]+)/.exec(path)?.[1] ?? '');
      if (backend) backend.health_check = body;
      return;
    }
    const frontends = Array.isArray(body.frontends) ? (body.frontends as Json[]) : 'inbound_port' in body ? [body] : [];
    for (const frontend of frontends) {
      const backend = isObject(frontend.backend) ? frontend.backend : undefined;
      const lb = isObject(frontend.lb) ? frontend.lb : undefined;
      if (backend) this.learnBackend(backend);
      if (lb && backend) {
        this.frontends.set(String(frontend.id), {
          lbId: String(lb.id),
          frontend: {
            id: String(frontend.id),
            name: String(frontend.name),
            inbound_port: Number(frontend.inbound_port),
            backend: String(backend.id),
          },
        });
      }
    }
    if (frontends.length > 0) return;
    const backends = Array.isArray(body.backends) ? (body.backends as Json[]) : 'forward_port' in body ? [body] : [];
    for (const backend of backends) this.learnBackend(backend);
    const lbs = Array.isArray(body.lbs) ? (body.lbs as Json[]) : 'instances' in body && 'ssl_compatibility_level' in body ? [body] : [];
    for (const lb of lbs) this.learnLbRecord(lb);
  }

  /** IPAM addresses but servers' routed public IPs, which are seeded with their server (same id in both APIs). */
  private ipsNotOfServers(): Json[] {
    const ofServers = new Set(
      [...this.servers.values()].flatMap((server) => ((server.public_ips ?? []) as Json[]).map((ip) => String(ip.id))),
    );
    return [...this.ips.values()].filter((ip) => !ofServers.has(String(ip.id)));
  }

  /** The seed of the world as recorded; `pendingMs` carries the emulator's own pending windows over a reload. */
  toSeed(pendingMs: Map<string, number> = new Map()): EmulatorSeed {
    const anyLb = [...this.lbs.values()][0];
    const anyServer = [...this.servers.values()][0];
    const projectId = (anyLb?.project_id ?? anyServer?.project) as string | undefined;
    const organizationId = (anyLb?.organization_id ?? anyServer?.organization) as string | undefined;
    const nicNetworks = new Map<string, string>();
    for (const server of this.servers.values()) {
      for (const nic of (server.private_nics ?? []) as Json[]) nicNetworks.set(String(nic.id), String(nic.private_network_id));
    }
    return {
      projectId,
      organizationId,
      lbs: [...this.lbs.values()].map((lb) => {
        const id = String(lb.id);
        const backends = [...this.backends.values()]
          .filter((backend) => backend.lb_id === lb.id)
          .map(({ lb_id: _lbId, ...backend }) => backend as SeedBackend);
        const backendIds = new Set(backends.map((b) => b.id));
        const pending = pendingMs.get(id);
        return {
          id,
          name: String(lb.name),
          zone: String(lb.zone),
          status: lb.status as never,
          tags: lb.tags as string[],
          description: String(lb.description ?? ''),
          type: String(lb.type),
          sslCompatibilityLevel: String(lb.ssl_compatibility_level),
          createdAt: String(lb.created_at),
          ipAddress: ((lb.ip as Json[] | undefined)?.[0]?.ip_address as string | undefined) ?? undefined,
          backends,
          frontends: [...this.frontends.values()].filter((f) => f.lbId === id && backendIds.has(f.frontend.backend)).map((f) => f.frontend),
          privateNetworks: this.attachments.get(id) ?? countedAttachments(Number(lb.private_network_count ?? 0)),
          ...(pending !== undefined && { instancesPendingMs: pending }),
        };
      }),
      servers: [...this.servers.values()].map((server) => ({
        id: String(server.id),
        name: String(server.name),
        zone: String(server.zone),
        createdAt: String(server.creation_date),
        tags: server.tags as string[],
        state: String(server.state),
        commercialType: String(server.commercial_type),
        ...(typeof server.creation_date === 'string' && { createdAt: server.creation_date }),
        ...(typeof server.mac_address === 'string' && { macAddress: server.mac_address }),
        publicIps: ((server.public_ips ?? []) as Json[]).map((ip) => String(ip.address)),
        publicIpIds: ((server.public_ips ?? []) as Json[]).map((ip) => String(ip.id)),
        privateNics: ((server.private_nics ?? []) as Json[]).map((nic) => ({
          id: String(nic.id),
          privateNetworkId: String(nic.private_network_id),
          macAddress: String(nic.mac_address),
          ipamAddresses: [],
        })),
      })),
      ips: this.ipsNotOfServers().map((ip) => {
        const resource = isObject(ip.resource) ? ip.resource : null;
        const source = isObject(ip.source) ? ip.source : {};
        return {
          id: String(ip.id),
          address: String(ip.address),
          region: String(ip.region),
          zone: (ip.zone as string | null) ?? null,
          projectId: String(ip.project_id),
          subnetId: source.subnet_id as string | undefined,
          privateNetworkId: this.ipNetworks.get(String(ip.id)) ?? (resource ? nicNetworks.get(String(resource.id)) : undefined),
          tags: ip.tags as string[],
          createdAt: String(ip.created_at),
          resource: resource
            ? {
                type: String(resource.type),
                id: String(resource.id),
                macAddress: resource.mac_address as string | null,
                name: resource.name as string | null,
              }
            : null,
        };
      }),
    };
  }
}

/**
 * Attachments a recording counts (an LB's `private_network_count`) but never lists: stand-ins, so that the count
 * answers as recorded (a doctor run of a kops target reads the LB, not its private networks).
 */
function countedAttachments(count: number): SeedLbPrivateNetwork[] {
  return Array.from({ length: count }, (_, i) => ({ privateNetworkId: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}` }));
}

// ---- comparing an answer with the recording ----

/** Every leaf of a JSON value by key path; array elements share the path `name[]` and keep their order. */
function leaves(value: unknown, prefix = '', into = new Map<string, unknown[]>()): Map<string, unknown[]> {
  if (Array.isArray(value)) {
    if (value.length === 0) into.set(prefix, [...(into.get(prefix) ?? []), '[]']);
    for (const item of value) leaves(item, `${prefix}[]`, into);
  } else if (isObject(value)) {
    if (Object.keys(value).length === 0) into.set(prefix, [...(into.get(prefix) ?? []), '{}']);
    for (const [key, child] of Object.entries(value)) leaves(child, prefix === '' ? key : `${prefix}.${key}`, into);
  } else {
    into.set(prefix, [...(into.get(prefix) ?? []), value]);
  }
  return into;
}

/** Every key path of a JSON value; array elements share the path `name[]`. */
function keyPaths(value: unknown, prefix = '', into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) keyPaths(item, `${prefix}[]`, into);
  } else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      into.add(path);
      keyPaths(child, path, into);
    }
  }
  return into;
}

function isVolatile(path: string): boolean {
  const last = path.split('.').pop() ?? path;
  return last in VOLATILE || path in VOLATILE_PATHS || INSTANCE_STATUS.test(path);
}

/**
 * While an LB is `to_create`, the API answers first with no instance, then with one `unknown` instance
 * (lb-lb-basic #3 vs lb-data-source-lbs-basic #7); the emulator gives the first form, so that list is not compared.
 */
function instancesUnsettled(recorded: Json, path: string): boolean {
  return recorded.status === 'to_create' && path.startsWith('instances');
}

/**
 * Recorded answers a sequential replay cannot reproduce, by `cassette#id`, with the reason.
 */
const AFTER_REVERSE_PATCH = "after a PATCH of the IP's reverses (#30, #48), a route the emulator does not serve: a reverse it cannot know";
const NOT_REPLAYABLE: Record<string, string> = {
  'ipam-ipamip-reverse-dns-basic#37': AFTER_REVERSE_PATCH,
  'ipam-ipamip-reverse-dns-basic#44': AFTER_REVERSE_PATCH,
  'lb-list-lb-backends-basic#9': 'two CreateBackend calls ran concurrently (#9, #10): the answer counts both backends',
  'cli-lb-test-get-stats-simple#14':
    'a health read depends on when the member joined the pool, which a reseed cannot carry (a seeded pool has been checked for long): ' +
    'replayed in order, from the add to the read, by "the LB\'s view of a member just added" below',
};

/** A write whose request body the cassette does not show (the CLI's recordings) cannot be sent again. */
const unknownWrite = (interaction: Interaction) => interaction.method !== 'GET' && interaction.requestBody === undefined;

function sameJson(a: unknown, b: unknown): boolean {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : isObject(value)
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, canonical(value[k])]),
          )
        : value;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function valueProblems(recorded: Json, answered: Json | undefined, notCompared: Record<string, string>): string[] {
  const want = leaves(recorded);
  const got = leaves(answered ?? {});
  const problems: string[] = [];
  for (const [path, values] of want) {
    if (isVolatile(path) || OPTIONAL_RECORDED_PATHS.has(path) || instancesUnsettled(recorded, path) || path in notCompared) continue;
    const mine = got.get(path);
    if (JSON.stringify(mine) !== JSON.stringify(values)) {
      problems.push(`${path}: ${JSON.stringify(mine)?.slice(0, 160)}, recorded ${JSON.stringify(values).slice(0, 160)}`);
    }
  }
  return problems;
}

/** `lb.status` and `lb.instances[].status` of an LB answer or of the LB a backend answer embeds. */
function statuses(body: Json | undefined): { lb: unknown; instances: unknown[] } | undefined {
  const lb = body && ('instances' in body ? body : isObject(body.lb) ? body.lb : undefined);
  if (!lb) return undefined;
  return { lb: lb.status, instances: ((lb.instances ?? []) as Json[]).map((instance) => instance.status) };
}

interface Comparison {
  request: string;
  problems: string[];
}

const AUTH = { 'X-Auth-Token': '11111111-2222-4333-8444-555555555555', 'Content-Type': 'application/json' };

async function send(emulator: EmulatorHandle, interaction: Interaction): Promise<{ response: Response; text: string }> {
  const { pathname, search } = interaction.url;
  const response = await fetch(`${emulator.url}${pathname}${search}`, {
    method: interaction.method,
    headers: AUTH,
    body: interaction.requestBody === '' || interaction.requestBody === undefined ? undefined : interaction.requestBody,
  });
  return { response, text: await response.text() };
}

async function replay(
  emulator: EmulatorHandle,
  interaction: Interaction,
  afterWrite: boolean,
  limits: CassetteLimits = { values: {}, newerKeys: [] },
): Promise<Comparison> {
  const request = `#${interaction.id} ${interaction.method} ${interaction.url.pathname}${interaction.url.search}`;
  const { response, text } = await send(emulator, interaction);
  const problems: string[] = [];
  if (response.status !== interaction.code) problems.push(`status ${response.status}, recorded ${interaction.code}: ${text.slice(0, 300)}`);
  const contentType = response.headers.get('content-type') ?? undefined;
  if (contentType !== interaction.headers['content-type'])
    problems.push(`content-type ${String(contentType)}, recorded ${String(interaction.headers['content-type'])}`);
  // The Instance API's list metadata travels in headers (instance-data-source-servers-basic).
  for (const name of ['x-total-count', 'link']) {
    const recorded = interaction.headers[name];
    if (recorded !== undefined && response.headers.get(name) !== recorded)
      problems.push(`${name} ${response.headers.get(name)}, recorded ${recorded}`);
  }
  const recorded = jsonBody(interaction.responseBody);
  if (recorded === undefined) {
    if (text !== '') problems.push(`recorded an empty body, emulator answered ${text.slice(0, 100)}`);
    return { request, problems };
  }
  const answered = jsonBody(text);
  if (interaction.code >= 400) {
    if (!sameJson(answered, recorded)) problems.push(`error body ${text}, recorded ${interaction.responseBody}`);
    return { request, problems };
  }
  const want = keyPaths(recorded);
  const got = keyPaths(answered);
  const missing = [...want].filter(
    (path) =>
      !got.has(path) && !OPTIONAL_RECORDED_PATHS.has(path) && !instancesUnsettled(recorded, path) && !limits.missingKeys?.includes(path),
  );
  const extra = [...got].filter((path) => !want.has(path) && !limits.newerKeys.includes(path));
  if (missing.length > 0) problems.push(`missing keys: ${missing.join(', ')}`);
  if (extra.length > 0) problems.push(`extra keys: ${extra.join(', ')}`);
  problems.push(...valueProblems(recorded, answered, limits.values));

  // The pending flips: a write's own answer says whether it flipped the instances; after a write, a read the
  // recording shows pending must be pending here too.
  const wantStatus = statuses(recorded);
  const gotStatus = statuses(answered);
  const isWrite = interaction.method !== 'GET';
  const recordedPending = wantStatus?.instances.includes('pending') ?? false;
  if (wantStatus && (isWrite || (afterWrite && recordedPending)) && JSON.stringify(gotStatus) !== JSON.stringify(wantStatus)) {
    problems.push(
      `statuses ${JSON.stringify(gotStatus)}, recorded ${JSON.stringify(wantStatus)}${isWrite ? " (in the write's answer)" : ' (read after a write)'}`,
    );
  }
  return { request, problems };
}

/** The recorded 429 against the emulator's default 429 fault on the same request. */
async function replayRateLimit(emulator: EmulatorHandle, interaction: Interaction): Promise<Comparison> {
  const request = `#${interaction.id} ${interaction.method} ${interaction.url.pathname}${interaction.url.search}`;
  emulator.addFault({ pathIncludes: interaction.url.pathname, status: 429 });
  const { response, text } = await send(emulator, interaction);
  const problems: string[] = [];
  const shape = (status: number, contentType: string | undefined, ratelimited: string | undefined, body: string) => ({
    status,
    contentType,
    ratelimited,
    body,
  });
  const got = shape(
    response.status,
    response.headers.get('content-type') ?? undefined,
    response.headers.get('x-envoy-ratelimited') ?? undefined,
    text,
  );
  const want = shape(
    interaction.code,
    interaction.headers['content-type'],
    interaction.headers['x-envoy-ratelimited'],
    interaction.responseBody,
  );
  if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`429 answered ${JSON.stringify(got)}, recorded ${JSON.stringify(want)}`);
  for (const hint of ['retry-after', 'x-ratelimit-reset']) {
    if (response.headers.has(hint) !== hint in interaction.headers)
      problems.push(`header ${hint}: emulator ${response.headers.get(hint)}, recorded ${interaction.headers[hint]}`);
  }
  return { request, problems };
}

/** What is left of each LB's pending window in the emulator, to carry over a reseed. */
function pendingWindows(emulator: EmulatorHandle): Map<string, number> {
  const now = Date.now();
  const windows = new Map<string, number>();
  for (const lb of emulator.state.lbs.values()) {
    if (lb.instancesPendingUntil > now) windows.set(lb.id, lb.instancesPendingUntil - now);
  }
  return windows;
}

// IAM and Messaging are replayed by accounts.test.ts: their world is no seed of LBs and servers; the other products'
// recordings are read for their error bodies (error-bodies.test.ts, tenancy.test.ts).
const cassettes = cassetteNames().filter((name) => !ACCOUNT_CASSETTE.test(name) && !ERROR_BODY_CASSETTE.test(name));

let emulator: EmulatorHandle;
beforeAll(async () => {
  // A long window: the replay runs much faster than the recording, and what is compared is which writes flip
  // the instances, not how long the flip lasts (that is compared with the recorded windows in docs/emulator.md).
  emulator = await startEmulator({ instancePendingMs: 5_000 });
});
afterAll(async () => {
  await emulator.stop();
});

describe('recorded Scaleway traffic', () => {
  it('finds the 23 cassettes of the LB, Instance, IPAM and Audit Trail world in the repository', () => {
    expect(cassettes).toHaveLength(23);
  });

  it.each(cassettes)('%s: the emulator answers like the recording', async (cassette) => {
    await replayCassette(cassette, readCassette(cassette));
  });

  // What a user sends in becomes a test as it is: a doctor run recorded against a seeded emulator (scrubbed, ids,
  // names, tags and addresses replaced) replays against a fresh one, its world derived from the cassette alone.
  it('a recording made by `lbsync doctor --record` replays as it is', { timeout: 120_000 }, async () => {
    const recording = await recordDoctorRun();
    expect(recording.run.code, recording.run.stderr).toBe(0);
    const interactions = readCassetteFile(recording.file);
    // Every call the emulator answered is in the cassette (ids aside: they are stand-ins there).
    const route = (method: string, path: string) => `${method} ${path.replace(new RegExp(UUID, 'g'), '{id}')}`;
    expect(interactions.map((i) => route(i.method, i.url.pathname))).toEqual(recording.calls.map((c) => route(c.method, c.path)));
    await replayCassette('doctor --record', interactions);
  });

  async function replayCassette(cassette: string, interactions: Interaction[]): Promise<void> {
    const replayable = (interaction: Interaction) => !(`${cassette}#${interaction.id}` in NOT_REPLAYABLE) && !unknownWrite(interaction);
    expect(interactions.length).toBeGreaterThan(0);
    const world = new RecordedWorld();
    const mismatches: Comparison[] = [];
    let compared = 0;
    let skipped = 0;
    // Whether the last recorded write was one the replay made: then a read the recording shows pending must be
    // pending here too (pending after a write the emulator does not serve, e.g. a frontend's, proves nothing).
    let lastWriteReplayed = false;
    // Until the first write, every recorded read shows the same world (a read-only run such as `lbsync doctor
    // --record` is all reads): the first answers may count what only later reads list (an LB's backend_count).
    for (const interaction of interactions) {
      if (interaction.method !== 'GET') break;
      world.learn(interaction);
    }
    for (const interaction of interactions) {
      const { pathname } = interaction.url;
      // A recorded read tells what existed at that moment; a recorded write what existed after it.
      if (interaction.method === 'GET') world.learn(interaction);
      if (interaction.code === 429) {
        emulator.clearFaults();
        mismatches.push(await replayRateLimit(emulator, interaction));
        compared += 1;
      } else if (isServed(interaction.method, pathname) && replayable(interaction)) {
        // A write starts from the settled world; a read keeps the pending window the emulator's own writes opened.
        const carried = interaction.method === 'GET' ? pendingWindows(emulator) : new Map<string, number>();
        emulator.loadSeed(world.toSeed(carried));
        mismatches.push(await replay(emulator, interaction, lastWriteReplayed, CASSETTE_LIMITS[cassette]));
        compared += 1;
      } else {
        skipped += 1;
      }
      if (interaction.method !== 'GET') {
        world.learn(interaction);
        lastWriteReplayed = isServed(interaction.method, pathname) && replayable(interaction) && interaction.code < 300;
      }
    }
    console.log(
      `${cassette}: compared ${compared}, skipped ${skipped} (routes the emulator does not serve, writes the cassette does not show)`,
    );
    expect(mismatches.filter((m) => m.problems.length > 0)).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(3);
  }
});

describe("the LB's view of a member just added (cli-lb-test-get-stats-simple)", () => {
  const CASSETTE = 'cli-lb-test-get-stats-simple';
  // #12 AddBackendServers put the address of a powered-off server into a backend; #14 read the LB's view of it 10 s
  // later: "stopped" / "unknown". The recorded check runs every 3000 ms and gives up after 5 tries, so the read came
  // before the check could fail it: the replay runs under that window (healthFailAfterMs), in one seeded world.
  const RECORDED_FAIL_WINDOW_MS = 3000 * 5;

  it('AddBackendServers, then GetLbStats and ListBackendStats answer the recorded item', async () => {
    const interactions = readCassette(CASSETTE);
    const [before, add, read] = [interactions[11], interactions[12], interactions[14]] as [Interaction, Interaction, Interaction];
    expect([add.method, add.url.pathname]).toEqual(['POST', expect.stringMatching(/\/backends\/[^/]+\/servers$/)]);
    expect([read.method, read.url.pathname]).toEqual(['GET', expect.stringMatching(/\/lbs\/[^/]+\/stats$/)]);
    const poolBefore = (jsonBody(before.responseBody)?.pool ?? []) as string[];
    const added = ((jsonBody(add.responseBody)?.pool ?? []) as string[]).filter((ip) => !poolBefore.includes(ip));
    const recordedItem = ((jsonBody(read.responseBody)?.backend_servers_stats ?? []) as Json[])[0] as Json;
    expect(recordedItem).toMatchObject({ ip: added[0], server_state: 'stopped', last_health_check_status: 'unknown' });

    const world = new RecordedWorld();
    for (const interaction of interactions.slice(0, add.id)) world.learn(interaction);
    emulator.loadSeed(world.toSeed());
    emulator.setBehaviours({ healthFailAfterMs: RECORDED_FAIL_WINDOW_MS });
    try {
      const addedAt = Date.now();
      // The request #12 sent is not in the cassette (see its README); what it added is the answer's new address.
      const limits = CASSETTE_LIMITS[CASSETTE];
      const addition = await replay(emulator, { ...add, requestBody: JSON.stringify({ server_ip: added }) }, false, limits);
      expect(addition.problems).toEqual([]);
      const reading = await replay(emulator, read, true, limits);
      expect(reading.problems).toEqual([]);

      const lbApi = new Lbv1.ZonedAPI(
        createClient({ accessKey: 'SCWXXXXXXXXXXXXXXXXX', secretKey: AUTH['X-Auth-Token'], apiURL: emulator.url, defaultZone: 'fr-par-1' }),
      );
      const lbId = /\/lbs\/([^/]+)\/stats$/.exec(read.url.pathname)?.[1] ?? '';
      const raw = (await (await fetch(`${emulator.url}${read.url.pathname}`, { headers: AUTH })).json()) as {
        backend_servers_stats: Json[];
      };
      const [item] = raw.backend_servers_stats;
      expect(raw.backend_servers_stats).toHaveLength(1);
      expect(Object.keys(item ?? {}).sort()).toEqual(Object.keys(recordedItem).sort());
      // Whole seconds, as recorded, and not before the add nor after the read.
      const changedAt = String(item?.server_state_changed_at);
      expect(changedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(Date.parse(changedAt)).toBeGreaterThanOrEqual(Math.floor(addedAt / 1000) * 1000);
      expect(Date.parse(changedAt)).toBeLessThanOrEqual(Date.now());

      // ListBackendStats pages the same items, through the SDK.
      const listed = await lbApi.listBackendStats({ lbId, backendId: String(recordedItem.backend_id) });
      expect(listed.totalCount).toBe(1);
      expect(listed.backendServersStats).toEqual([
        {
          instanceId: item?.instance_id,
          backendId: recordedItem.backend_id,
          ip: recordedItem.ip,
          serverState: 'stopped',
          serverStateChangedAt: new Date(changedAt),
          lastHealthCheckStatus: 'unknown',
        },
      ]);
    } finally {
      emulator.setBehaviours({ healthFailAfterMs: 0 });
    }
  });
});

describe('a change of health-check type, in one world (lb-backend-health-check #25-#29, #44-#48)', () => {
  // The replay above reseeds the recorded world before every call, so a read after a write shows what the recording
  // says, not what the emulator made of the write. Here the writes and the reads after them run in one world: tcp ->
  // http (#26, then #29 has http_config and no tcp_config), http -> https (#45, then #48 has https_config alone).
  const CASSETTE = 'lb-backend-health-check';

  it('each write, and the backend read after it, answers as recorded', async () => {
    const interactions = readCassette(CASSETTE);
    const first = interactions.find((i) => i.id === 25) as Interaction;
    const world = new RecordedWorld();
    for (const interaction of interactions.slice(0, first.id)) world.learn(interaction);
    emulator.loadSeed(world.toSeed());
    const played = interactions.filter(
      (i) => ((i.id >= 25 && i.id <= 29) || (i.id >= 44 && i.id <= 48)) && isServed(i.method, i.url.pathname),
    );
    expect(played.map((i) => i.id)).toEqual([25, 26, 27, 28, 29, 44, 45, 46, 47, 48]);
    const checks: unknown[] = [];
    for (const interaction of played) {
      const comparison = await replay(emulator, interaction, true);
      expect(comparison.problems, comparison.request).toEqual([]);
      if (interaction.method === 'GET' && interaction.url.pathname.includes('/backends/')) {
        const answered = (await send(emulator, interaction)).text;
        checks.push(Object.keys((jsonBody(answered)?.health_check ?? {}) as Json).filter((k) => k.endsWith('_config')));
      }
    }
    expect(checks).toEqual([['http_config'], ['https_config']]);
  });
});

describe('a backend created with optional fields left out (cli-lb-test-add-backend-servers-with-instance-id-public-ip #13)', () => {
  const CASSETTE = 'cli-lb-test-add-backend-servers-with-instance-id-public-ip';

  it('answers max_retries and timeout_queue null and proxy_protocol_unknown, as recorded', async () => {
    const interactions = readCassette(CASSETTE);
    const create = interactions[13] as Interaction;
    expect([create.method, create.url.pathname]).toEqual(['POST', expect.stringMatching(/\/lbs\/[^/]+\/backends$/)]);
    const recorded = jsonBody(create.responseBody) as Json;
    expect(recorded).toMatchObject({ max_retries: null, timeout_queue: null, proxy_protocol: 'proxy_protocol_unknown' });

    // The request is not in the CLI's cassette (see its README): the CLI sends, through the Go SDK, every field that
    // has no omitempty ("" for an enum left unset), its own defaults for the timeouts and the health check, and
    // nothing for max_retries and timeout_queue (pointers left nil).
    const sent = {
      name: recorded.name,
      forward_protocol: recorded.forward_protocol,
      forward_port: recorded.forward_port,
      forward_port_algorithm: recorded.forward_port_algorithm,
      sticky_sessions: recorded.sticky_sessions,
      sticky_sessions_cookie_name: '',
      health_check: { ...(recorded.health_check as Json), transient_check_delay: '0.500000000s' },
      server_ip: [],
      timeout_server: recorded.timeout_server,
      timeout_connect: recorded.timeout_connect,
      timeout_tunnel: recorded.timeout_tunnel,
      on_marked_down_action: '',
      proxy_protocol: '',
    };
    const world = new RecordedWorld();
    for (const interaction of interactions.slice(0, create.id)) world.learn(interaction);
    emulator.loadSeed(world.toSeed());
    const comparison = await replay(emulator, { ...create, requestBody: JSON.stringify(sent) }, false, CASSETTE_LIMITS[CASSETTE]);
    expect(comparison.problems).toEqual([]);
  });
});

describe("ListServers' Link header on every page, as the Instance API's product list answers it", () => {
  // instance-data-source-servers-basic #4-#6: three pages of `/products/servers` (50 a page). No recording spans two
  // pages of ListServers itself; the emulator answers its pages in the same form, under its own path.
  it('page 1, 2 and 3 of 120 servers, 50 a page: first, previous, next, last, joined by a bare comma', async () => {
    const recorded = readCassette('instance-data-source-servers-basic')
      .filter((i) => i.id >= 4 && i.id <= 6)
      .map((i) => [Number(i.url.searchParams.get('page')), i.headers.link] as const);
    expect(recorded.map(([page]) => page)).toEqual([1, 2, 3]);
    emulator.loadSeed({
      servers: Array.from({ length: 120 }, (_, n) => ({ name: `server-${n}`, zone: 'fr-par-1', tags: [], publicIps: [`51.15.9.${n}`] })),
    });
    for (const [page, link] of recorded) {
      const response = await fetch(`${emulator.url}/instance/v1/zones/fr-par-1/servers?page=${page}&per_page=50`, { headers: AUTH });
      expect(response.headers.get('x-total-count')).toBe('120');
      expect(response.headers.get('link'), `page ${page}`).toBe(link?.replaceAll('/products/servers', '/servers'));
    }
  });
});
