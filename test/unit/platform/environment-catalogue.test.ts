// The one list of environment variables (shared/platform/environment-catalogue.json) against what reads and sets
// them: every variable shared/platform/config.ts reads is in it, every one in it is read, its secrets are the ones
// scrubbed, and serverless.yml deploys only variables it lists, with its defaults.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FUNCTIONS } from '../../../functions/registry';
import * as config from '../../../shared/platform/config';
import type { Env } from '../../../shared/platform/config';
import { deployedName, ENVIRONMENT_CATALOGUE, variableNames } from '../../../shared/platform/environment-catalogue';

const UUID = '23b8c1e9-3924-46de-beb1-3b9046685257';
/** Values every reader accepts, so that none stops before it has read all it reads. */
const SAMPLES: Record<string, string> = {
  LBSYNC_TARGETS: JSON.stringify([{ kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1' } }]),
  LBSYNC_CONFIG: '/nonexistent/targets.json',
  SCW_ACCESS_KEY: 'SCWXXXXXXXXXXXXXXXXX',
  SCW_SECRET_KEY: '11111111-2222-4333-8444-555555555555',
  SCW_DEFAULT_PROJECT_ID: UUID,
  SCW_DEFAULT_ORGANIZATION_ID: UUID,
  SCW_DEFAULT_ZONE: 'fr-par-1',
  SCW_API_URL: 'https://api.example.test',
  SQS_ENDPOINT: 'https://sqs.example.test',
  SQS_ACCESS_KEY_ID: 'queues-access-key',
  SQS_SECRET_ACCESS_KEY: 'queues-secret-key',
  RECONCILE_QUEUE_URL: 'https://sqs.example.test/project/lbsync-reconcile',
  DEAD_LETTER_QUEUE_URL: 'https://sqs.example.test/project/lbsync-dead-letter',
  INJECT_TOKEN: 'inject-token-0123',
  LBSYNC_INJECT_INSECURE: 'false',
  FUNCTION_TOKEN: 'function-token-0123',
  LBSYNC_WATCH_OWN_PRINCIPAL_IDS: UUID,
  LBSYNC_OWNER_ID: 'prod-par',
};

/** A value for every catalogued variable, under its own name or, in a function, its deployed one. */
function fullEnv(spelling: 'own' | 'deployed'): Record<string, string> {
  return Object.fromEntries(
    ENVIRONMENT_CATALOGUE.flatMap(([name, variable]) => {
      const value = SAMPLES[name] ?? (variable.default === undefined ? undefined : String(variable.default));
      return value === undefined ? [] : [[spelling === 'deployed' ? deployedName(name) : name, value]];
    }),
  );
}

/** An environment that notes every name read from it, set or not. */
function recording(values: Record<string, string>): { env: Env; read: Set<string> } {
  const read = new Set<string>();
  const env = new Proxy(values, {
    get(target, key) {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(target, key);
    },
  });
  return { env, read };
}

/** Every reader config.ts exports, called as the functions and the CLI call it. */
const READERS: Record<string, (env: Env) => unknown> = {
  loadTargets: config.loadTargets,
  scalewaySettingsFromEnv: config.scalewaySettingsFromEnv,
  ownerIdFromEnv: config.ownerIdFromEnv,
  auditTrailSettingsFromEnv: config.auditTrailSettingsFromEnv,
  runtimeConfigFromEnv: config.runtimeConfigFromEnv,
  runtimeDefaults: () => config.runtimeDefaults(),
  injectSettingsFromEnv: config.injectSettingsFromEnv,
  queueConnectionFromEnv: config.queueConnectionFromEnv,
  queueUrlFromEnv: (env) => ['RECONCILE_QUEUE_URL' as const, 'DEAD_LETTER_QUEUE_URL' as const].map((n) => config.queueUrlFromEnv(env, n)),
  queueEnvFromEnv: config.queueEnvFromEnv,
  secretValues: config.secretValues,
  configWarnings: config.configWarnings,
};

/** The catalogue's name for a name read: LBSYNC_SCW_X is SCW_X as a deployed function reads it. */
const catalogueName = (read: string) => (read.startsWith('LBSYNC_SCW_') ? read.slice('LBSYNC_'.length) : read);

describe('the environment catalogue and shared/platform/config.ts', () => {
  it('names only functions of functions/registry.ts', () => {
    const named = ENVIRONMENT_CATALOGUE.flatMap(([, variable]) => (variable.functions === 'all' ? [] : variable.functions));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !(FUNCTIONS as readonly string[]).includes(name))).toEqual([]);
  });

  const names: string[] = ENVIRONMENT_CATALOGUE.map(([name]) => name);

  it('probes every reader config.ts exports', () => {
    const exported = Object.entries(config)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name);
    expect(Object.keys(READERS).sort()).toEqual(exported.sort());
  });

  it('lists every variable config.ts reads, and config.ts reads every one it lists (node reads NODE_OPTIONS)', () => {
    const read = new Set<string>();
    for (const spelling of ['own', 'deployed'] as const) {
      for (const [reader, call] of Object.entries(READERS)) {
        const probe = recording(fullEnv(spelling));
        expect(() => call(probe.env), `${reader} (${spelling} names)`).not.toThrow();
        for (const name of probe.read) read.add(catalogueName(name));
      }
    }
    expect([...read].filter((name) => !names.includes(name))).toEqual([]);
    const unread = ENVIRONMENT_CATALOGUE.filter(([name, variable]) => !variable.readByNode && !read.has(name)).map(([name]) => name);
    expect(unread).toEqual([]);
  });

  it('its secrets, under either spelling, and the credentials in its URLs are what the scrubber removes; nothing else is', () => {
    const env: Record<string, string> = {};
    const secret = variableNames((v) => v.secret);
    const urls = variableNames((v) => v.url);
    for (const [name] of ENVIRONMENT_CATALOGUE) {
      for (const spelling of new Set([name, deployedName(name)])) env[spelling] = `plain-value-of-${spelling}`;
    }
    for (const name of secret) env[name] = `secret-value-of-${name}`;
    for (const name of urls) env[name] = `https://user-of-${name}:password-of-${name}@host.example.test/path`;
    const scrubbed = config.secretValues(env);
    expect(scrubbed).toEqual(
      expect.arrayContaining([...secret.map((n) => `secret-value-of-${n}`), ...urls.map((n) => `password-of-${n}`)]),
    );
    expect(scrubbed.filter((value) => value.startsWith('plain-value-of-'))).toEqual([]);
    expect(secret).toEqual(expect.arrayContaining(['SCW_SECRET_KEY', 'LBSYNC_SCW_SECRET_KEY', 'SQS_SECRET_ACCESS_KEY', 'INJECT_TOKEN']));
  });
});

describe('the environment catalogue and serverless.yml', () => {
  type Holder = { env?: Record<string, unknown>; secret?: Record<string, unknown> };
  const serverless = parse(readFileSync(new URL('../../../serverless.yml', import.meta.url), 'utf8')) as {
    provider: Holder;
    functions: Record<string, Holder>;
  };
  const deployed = [['provider', serverless.provider] as const, ...Object.entries(serverless.functions)].flatMap(([where, holder]) =>
    (['env', 'secret'] as const).flatMap((kind) =>
      Object.entries(holder[kind] ?? {}).map(([key, value]) => ({ at: `${where}.${kind}.${key}`, key, value })),
    ),
  );
  const byDeployedName = new Map(ENVIRONMENT_CATALOGUE.map(([name, variable]) => [deployedName(name), variable]));

  it('deploys only variables the catalogue lists, by the names the functions read', () => {
    expect(deployed.length).toBeGreaterThan(20);
    expect(deployed.filter(({ key }) => !byDeployedName.has(key)).map(({ at }) => at)).toEqual([]);
  });

  it("falls back on the catalogue's defaults when the deployer leaves a variable unset", () => {
    const fallbacks = deployed.flatMap(({ at, key, value }) => {
      const literal = /^\$\{env:[A-Z0-9_]+,\s*'([^']*)'\}$/.exec(String(value))?.[1];
      const own = byDeployedName.get(key)?.default;
      return literal === undefined || own === undefined ? [] : [{ at, literal, own: String(own) }];
    });
    expect(fallbacks.length).toBeGreaterThan(10);
    expect(fallbacks.filter(({ literal, own }) => literal !== own)).toEqual([]);
  });
});
