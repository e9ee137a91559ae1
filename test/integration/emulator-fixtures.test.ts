/**
 * Replays the recorded Scaleway API traffic against the emulator. For every recorded call to a
 * route the emulator serves, the emulator is seeded with the resources the recording knew of at
 * that point (ids kept), the recorded request is sent, and the answer must have the recorded
 * status, `Content-Type: application/json`, and the same set of JSON key paths (and total_count).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle, type EmulatorSeed, type SeedBackend } from '../../emulator';

const FIXTURES = '/work/shared/fixtures/scaleway-api';

/** Key paths the real API sends only sometimes; their absence in the emulator's answer is accepted. */
const OPTIONAL_RECORDED_PATHS = new Set(['server.admin_password_encryption_ssh_key_id']);

interface Interaction {
  method: string;
  url: string;
  requestBody: string;
  code: number;
  contentType: string | undefined;
  responseBody: string;
}

type Json = Record<string, unknown>;

// ---- a reader for go-vcr cassettes (every scalar we need sits on one line) ----

function yamlScalar(raw: string): string {
  const text = raw.trim();
  if (text.startsWith("'")) return text.slice(1, -1).replaceAll("''", "'");
  if (text.startsWith('"')) return JSON.parse(text) as string;
  return text;
}

function readCassette(file: string): Interaction[] {
  const interactions: Interaction[] = [];
  let current: Interaction | undefined;
  let section: 'request' | 'response' | undefined;
  let inContentType = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^ {4}- id: \d+/.test(line)) {
      current = { method: '', url: '', requestBody: '', code: 0, contentType: undefined, responseBody: '' };
      interactions.push(current);
      continue;
    }
    if (!current) continue;
    if (line === '      request:') section = 'request';
    else if (line === '      response:') section = 'response';
    const field = /^ {8}(\w+): (.*)$/.exec(line);
    if (field) {
      const [, name, value = ''] = field;
      if (name === 'body' && section === 'request') current.requestBody = yamlScalar(value);
      if (name === 'body' && section === 'response') current.responseBody = yamlScalar(value);
      if (name === 'url') current.url = yamlScalar(value);
      if (name === 'method') current.method = yamlScalar(value);
      if (name === 'code') current.code = Number(value);
    }
    if (section === 'response' && /^ {12}Content-Type:$/.test(line)) {
      inContentType = true;
      continue;
    }
    if (inContentType) {
      const item = /^ {16}- (.*)$/.exec(line);
      if (item?.[1] !== undefined) current.contentType = yamlScalar(item[1]);
      inContentType = false;
    }
  }
  return interactions;
}

// ---- which recorded routes the emulator serves ----

const UUID = '[0-9a-f-]{36}';
const SERVED: { method: string; pattern: RegExp }[] = [
  { method: 'GET', pattern: /^\/lb\/v1\/zones\/[^/]+\/lbs$/ },
  { method: 'GET', pattern: new RegExp(`^/lb/v1/zones/[^/]+/lbs/${UUID}$`) },
  { method: 'GET', pattern: new RegExp(`^/lb/v1/zones/[^/]+/lbs/${UUID}/backends$`) },
  { method: 'POST', pattern: new RegExp(`^/lb/v1/zones/[^/]+/lbs/${UUID}/backends$`) },
  { method: 'GET', pattern: new RegExp(`^/lb/v1/zones/[^/]+/backends/${UUID}$`) },
  { method: 'PUT', pattern: new RegExp(`^/lb/v1/zones/[^/]+/backends/${UUID}$`) },
  { method: 'DELETE', pattern: new RegExp(`^/lb/v1/zones/[^/]+/backends/${UUID}$`) },
  { method: 'PUT', pattern: new RegExp(`^/lb/v1/zones/[^/]+/backends/${UUID}/(servers|healthcheck)$`) },
  { method: 'GET', pattern: /^\/instance\/v1\/zones\/[^/]+\/servers$/ },
  { method: 'GET', pattern: new RegExp(`^/instance/v1/zones/[^/]+/servers/${UUID}$`) },
  { method: 'GET', pattern: /^\/ipam\/v1\/regions\/[^/]+\/ips$/ },
];

function isServed(method: string, path: string): boolean {
  return SERVED.some((route) => route.method === method && route.pattern.test(path));
}

// ---- what the recording knows about the world, kept up to date interaction by interaction ----

class RecordedWorld {
  readonly lbs = new Map<string, Json>();
  readonly backends = new Map<string, Json>();
  readonly servers = new Map<string, Json>();
  readonly ips = new Map<string, Json>();
  /** Private network of IPAM IPs, learnt from the filters of recorded ListIPs calls. */
  readonly ipNetworks = new Map<string, string>();

  learn(interaction: Interaction): void {
    const url = new URL(interaction.url);
    const path = url.pathname;
    const body = parseJson(interaction.responseBody);
    const idInPath = (segment: string): string | undefined => new RegExp(`/${segment}/(${UUID})`).exec(path)?.[1];
    if (interaction.code === 404) {
      if (/\/lb\/v1\/zones\/[^/]+\/lbs\/[^/]+$/.test(path)) this.lbs.delete(idInPath('lbs') ?? '');
      if (/\/backends\/[^/]+$/.test(path)) this.backends.delete(idInPath('backends') ?? '');
      if (/\/instance\/v1\/zones\/[^/]+\/servers\/[^/]+$/.test(path)) this.servers.delete(idInPath('servers') ?? '');
      return;
    }
    if (interaction.method === 'DELETE' && interaction.code === 204) {
      if (/\/lb\/v1\/zones\/[^/]+\/backends\/[^/]+$/.test(path)) this.backends.delete(idInPath('backends') ?? '');
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

  private learnLb(path: string, body: Json): void {
    if (/\/backends\/[^/]+\/healthcheck$/.test(path)) {
      const backend = this.backends.get(/\/backends\/([^/]+)/.exec(path)?.[1] ?? '');
      if (backend) backend.health_check = body;
      return;
    }
    const backends = Array.isArray(body.backends) ? (body.backends as Json[]) : 'forward_port' in body ? [body] : [];
    for (const backend of backends) {
      const { lb, ...rest } = backend;
      if (isObject(lb)) this.lbs.set(String(lb.id), lb);
      this.backends.set(String(backend.id), { ...rest, lb_id: isObject(lb) ? lb.id : undefined });
    }
    const lbs = Array.isArray(body.lbs) ? (body.lbs as Json[]) : 'instances' in body && 'ssl_compatibility_level' in body ? [body] : [];
    for (const lb of lbs) this.lbs.set(String(lb.id), lb);
  }

  toSeed(): EmulatorSeed {
    const anyLb = [...this.lbs.values()][0];
    const anyServer = [...this.servers.values()][0];
    const projectId = (anyLb?.project_id ?? anyServer?.project) as string | undefined;
    const nicNetworks = new Map<string, string>();
    for (const server of this.servers.values()) {
      for (const nic of (server.private_nics ?? []) as Json[]) nicNetworks.set(String(nic.id), String(nic.private_network_id));
    }
    return {
      projectId,
      lbs: [...this.lbs.values()].map((lb) => ({
        id: String(lb.id),
        name: String(lb.name),
        zone: String(lb.zone),
        status: lb.status as never,
        tags: lb.tags as string[],
        description: String(lb.description ?? ''),
        type: String(lb.type),
        createdAt: String(lb.created_at),
        ipAddress: ((lb.ip as Json[] | undefined)?.[0]?.ip_address as string | undefined) ?? undefined,
        backends: [...this.backends.values()]
          .filter((backend) => backend.lb_id === lb.id)
          .map(({ lb_id: _lbId, ...backend }) => backend as SeedBackend),
      })),
      servers: [...this.servers.values()].map((server) => ({
        id: String(server.id),
        name: String(server.name),
        zone: String(server.zone),
        tags: server.tags as string[],
        state: String(server.state),
        commercialType: String(server.commercial_type),
        publicIps: ((server.public_ips ?? []) as Json[]).map((ip) => String(ip.address)),
        privateNics: ((server.private_nics ?? []) as Json[]).map((nic) => ({
          id: String(nic.id),
          privateNetworkId: String(nic.private_network_id),
          macAddress: String(nic.mac_address),
          ipamAddresses: [],
        })),
      })),
      ips: [...this.ips.values()].map((ip) => {
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

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): Json | undefined {
  if (text.trim() === '') return undefined;
  const value = JSON.parse(text) as unknown;
  return isObject(value) ? value : undefined;
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

interface Comparison {
  request: string;
  problems: string[];
}

async function replay(emulator: EmulatorHandle, interaction: Interaction): Promise<Comparison> {
  const url = new URL(interaction.url);
  const request = `${interaction.method} ${url.pathname}${url.search}`;
  const response = await fetch(`${emulator.url}${url.pathname}${url.search}`, {
    method: interaction.method,
    headers: { 'X-Auth-Token': '11111111-2222-4333-8444-555555555555', 'Content-Type': 'application/json' },
    body: interaction.requestBody === '' ? undefined : interaction.requestBody,
  });
  const text = await response.text();
  const problems: string[] = [];
  if (response.status !== interaction.code) problems.push(`status ${response.status}, recorded ${interaction.code}: ${text.slice(0, 300)}`);
  const contentType = response.headers.get('content-type');
  if (contentType !== 'application/json') problems.push(`content-type ${String(contentType)}`);
  if (interaction.contentType !== 'application/json') problems.push(`recorded content-type ${String(interaction.contentType)}`);
  const recorded = parseJson(interaction.responseBody);
  if (recorded === undefined) {
    if (text !== '') problems.push(`recorded an empty body, emulator answered ${text.slice(0, 100)}`);
    return { request, problems };
  }
  const answered = parseJson(text);
  const want = keyPaths(recorded);
  const got = keyPaths(answered);
  const missing = [...want].filter((path) => !got.has(path) && !OPTIONAL_RECORDED_PATHS.has(path));
  const extra = [...got].filter((path) => !want.has(path));
  if (missing.length > 0) problems.push(`missing keys: ${missing.join(', ')}`);
  if (extra.length > 0) problems.push(`extra keys: ${extra.join(', ')}`);
  if ('total_count' in recorded && recorded.total_count !== answered?.total_count) {
    problems.push(`total_count ${String(answered?.total_count)}, recorded ${String(recorded.total_count)}`);
  }
  return { request, problems };
}

const cassettes = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.cassette.yaml'))
  .sort();

let emulator: EmulatorHandle;
beforeAll(async () => {
  emulator = await startEmulator({ instancePendingMs: 0 });
});
afterAll(async () => {
  await emulator.stop();
});

describe('recorded Scaleway traffic', () => {
  it('finds the cassettes', () => {
    expect(cassettes.length).toBeGreaterThanOrEqual(8);
  });

  it.each(cassettes)('%s: the emulator answers like the recording', async (cassette) => {
    const interactions = readCassette(`${FIXTURES}/${cassette}`);
    expect(interactions.length).toBeGreaterThan(0);
    const world = new RecordedWorld();
    const mismatches: Comparison[] = [];
    let compared = 0;
    let skipped = 0;
    for (const interaction of interactions) {
      const { pathname } = new URL(interaction.url);
      // A recorded read tells what existed at that moment; a recorded write what existed after it.
      if (interaction.method === 'GET') world.learn(interaction);
      if (isServed(interaction.method, pathname)) {
        emulator.loadSeed(world.toSeed());
        const comparison = await replay(emulator, interaction);
        compared += 1;
        if (comparison.problems.length > 0) mismatches.push(comparison);
      } else {
        skipped += 1;
      }
      if (interaction.method !== 'GET') world.learn(interaction);
    }
    console.log(`${cassette}: compared ${compared}, skipped ${skipped} (routes the emulator does not serve)`);
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(3);
  });
});
