// Offline checks of serverless.yml: no Scaleway API, no Serverless Framework.
//
//   npm run build && node scripts/validate-serverless.mjs [--config serverless.yml ...] [--root .]
//       [--require-env] [--json] [--plugin <dir holding node_modules/serverless-scaleway-functions>]
//
// It resolves ${env:NAME[, fallback]} from this process's environment, then checks what
// serverless-scaleway-functions 0.5 validates before it calls the API (handler files, trigger
// syntax, string variables, region) and what it leaves to the API or misses (runtime names,
// memory tiers, reserved SCW_* names, the 1000-character variable limit), and this project's
// own wiring: handlers, privacy, the queue the trigger reads, the environment each bundle reads.
// With --require-env every ${env:...} without a fallback must be set (a pre-deploy check).
// When the plugin is installed (or --plugin points at it) its own validate module runs as well.
// Exit status: 0 valid, 1 invalid, 2 could not run.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** DESIGN §4 "Functions": one bundle per function, dist/<name>/handler.js exporting handle. */
const FUNCTIONS = ['reconcile', 'inject', 'sweep'];
/** Scaleway Functions runtimes in status "available" for Node.js (DESIGN §2: node20 / node22). */
const NODE_RUNTIMES = ['node20', 'node22'];
/** Memory tiers (MB) a function may use: Scaleway docs, "Available vCPU and memory tiers". */
const MEMORY_TIERS = [128, 256, 512, 1024, 2048, 3072, 4096];
/** Regions the plugin accepts for scwRegion and trigger regions. */
const REGIONS = ['fr-par', 'nl-ams', 'pl-waw'];
/** Scaleway Functions limits: scale per function, plain and secret variable sizes. */
const MAX_SCALE = 50;
const MAX_ENV_CHARS = 1000;
const MAX_SECRET_BYTES = 65536;
/** Trigger types the plugin knows; name and queue rules as its validator states them. */
const TRIGGER_TYPES = ['schedule', 'sqs', 'nats'];
const TRIGGER_NAME = /^[a-zA-Z0-9-]{2,100}$/;
const SQS_QUEUE_NAME = /^[a-zA-Z0-9._-]{2,80}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Every variable the bundles read, where it must be provided and how (see shared/config.ts,
 * functions/*). The bundles are scanned: a name they read that is missing here fails the check,
 * and so does a name here they no longer read. SCW_X in a bundle is read as LBSYNC_SCW_X first.
 */
const ALL = 'all';
const ENV_CATALOG = {
  SQS_ACCESS_KEY_ID: { in: ALL, required: true, secret: true },
  SQS_SECRET_ACCESS_KEY: { in: ALL, required: true, secret: true },
  RECONCILE_QUEUE_URL: { in: ALL, required: true },
  DEAD_LETTER_QUEUE_URL: { in: ALL, required: true },
  // A plain variable, or a secret when the JSON outgrows 1000 characters.
  LBSYNC_TARGETS: { in: ALL, required: true, eitherKind: true },
  LBSYNC_SCW_ACCESS_KEY: { in: ['reconcile'], required: true, secret: true },
  LBSYNC_SCW_SECRET_KEY: { in: ['reconcile'], required: true, secret: true },
  INJECT_TOKEN: { in: ['inject'], required: true, secret: true },
  SQS_ENDPOINT: { in: ALL },
  SQS_REGION: { in: ALL },
  LOG_LEVEL: { in: ALL },
  LOG_FORMAT: { in: ALL },
  QUEUE_DELAY_MODE: { in: ALL },
  LBSYNC_SCW_DEFAULT_PROJECT_ID: { in: ['reconcile'] },
  LBSYNC_SCW_DEFAULT_ZONE: { in: ['reconcile'] },
  LBSYNC_SCW_API_URL: { in: ['reconcile'] },
  LBSYNC_RETRY_BASE_MS: { in: ALL },
  LBSYNC_RETRY_CAP_MS: { in: ALL },
  LBSYNC_MAX_ATTEMPTS: { in: ALL },
  LBSYNC_MAX_HOLD_MS: { in: ALL },
  LBSYNC_WAIT_BUDGET_MS: { in: ALL },
  LBSYNC_REQUEST_TIMEOUT_MS: { in: ALL },
  LBSYNC_DUPLICATE_GRACE_MS: { in: ['reconcile'] },
  LBSYNC_CONFIG: { forbidden: 'names a file, and only dist/** is shipped: give the targets in LBSYNC_TARGETS' },
  LBSYNC_INJECT_INSECURE: { forbidden: 'turns off the inject token check; it is for the local stack only' },
};
/** Prefixes of the names our code reads (AWS_* belong to the AWS SDK and are not ours). */
const OUR_NAMES = /\b(?:LBSYNC|SQS|SCW|RECONCILE|DEAD_LETTER|QUEUE|INJECT|LOG)_[A-Z0-9_]*[A-Z0-9]\b/g;
/** shared/config.ts defaults, for the timing check when serverless.yml leaves a value out. */
const TIMING_DEFAULTS = { LBSYNC_MAX_HOLD_MS: 20_000, LBSYNC_WAIT_BUDGET_MS: 15_000, LBSYNC_REQUEST_TIMEOUT_MS: 10_000 };

const UNSET = (name) => `<unset:${name}>`;
const isUnset = (value) => typeof value === 'string' && /<unset:[A-Za-z0-9_]+>/.test(value);
const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Resolves ${env:A[, env:B][, 'literal']} like the Serverless Framework v3 (an empty variable counts as unset); other sources are refused. */
function resolveVariables(node, env, report, path = '') {
  if (Array.isArray(node)) return node.map((item, i) => resolveVariables(item, env, report, `${path}[${i}]`));
  if (isPlainObject(node)) {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolveVariables(v, env, report, path ? `${path}.${k}` : k)]));
  }
  if (typeof node !== 'string' || !node.includes('${')) return node;
  return node.replace(/\$\{([^{}]*)\}/g, (whole, inner) => {
    const candidates = inner.split(',').map((part) => part.trim());
    for (const candidate of candidates) {
      const envRef = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(candidate);
      const literal = /^'([^']*)'$|^"([^"]*)"$/.exec(candidate);
      if (envRef) {
        const value = env[envRef[1]];
        if (value !== undefined && value !== '') return value;
      } else if (literal) {
        return literal[1] ?? literal[2];
      } else if (/^-?\d+(\.\d+)?$/.test(candidate)) {
        return candidate;
      } else {
        report.error(`${path}: ${whole} uses a variable source this check does not resolve (only env: and literals)`);
        return whole;
      }
    }
    const names = candidates.map((c) => /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(c)?.[1]).filter(Boolean);
    report.unset(names.join(' or '), path);
    return UNSET(names[0]);
  });
}

/**
 * A 5-field cron that both the platform (standard cron, UTC) and the plugin's validator accept:
 * fields separated by one space, each `*`, a number, a list of numbers or a range `a-b`.
 * The plugin rejects steps on `*` (e.g. `*\/5`) and names (MON, JAN).
 */
export function cronProblems(rate) {
  if (typeof rate !== 'string') return ['the schedule rate must be a string'];
  const fields = rate.split(' ');
  if (fields.length !== 5) return [`"${rate}" must have exactly 5 fields separated by single spaces (minute hour day-of-month month day-of-week, UTC)`];
  const bounds = [['minute', 0, 59], ['hour', 0, 23], ['day of month', 1, 31], ['month', 1, 12], ['day of week', 0, 7]];
  const problems = [];
  fields.forEach((field, i) => {
    const [label, min, max] = bounds[i];
    const inRange = (n) => Number.isInteger(n) && n >= min && n <= max;
    if (field === '*') return;
    if (/^\d+(,\d+)*$/.test(field)) {
      const bad = field.split(',').map(Number).filter((n) => !inRange(n));
      if (bad.length > 0) problems.push(`${label} ${bad.join(',')} is outside ${min}-${max}`);
      return;
    }
    const range = /^(\d+)-(\d+)$/.exec(field);
    if (range) {
      const [a, b] = [Number(range[1]), Number(range[2])];
      if (!inRange(a) || !inRange(b) || a > b) problems.push(`${label} range ${field} must be a-b with ${min} <= a <= b <= ${max}`);
      return;
    }
    if (field.includes('/')) {
      problems.push(`${label} "${field}": serverless-scaleway-functions rejects step syntax; list the values instead (e.g. 0,15,30,45)`);
      return;
    }
    problems.push(`${label} "${field}" must be *, a number, a comma-separated list of numbers or a range a-b`);
  });
  return problems;
}

/** Names our bundles read, deployed names (SCW_X -> LBSYNC_SCW_X). */
function namesReadByBundles(root) {
  const names = new Set();
  for (const name of FUNCTIONS) {
    const file = join(root, 'dist', name, 'handler.js');
    if (!existsSync(file)) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(OUR_NAMES)) {
      names.add(match[0].startsWith('SCW_') ? `LBSYNC_${match[0]}` : match[0]);
    }
  }
  return names;
}

function checkFunctionShape(name, fn, root, report) {
  const where = `functions.${name}`;
  const expected = `dist/${name}/handler.handle`;
  if (fn.handler !== expected) report.error(`${where}.handler is "${fn.handler}"; the bundle of ${name} is ${expected}`);
  if (typeof fn.handler === 'string') {
    const parts = fn.handler.split('.');
    const file = join(root, `${parts[0]}.js`);
    if (parts.length !== 2) report.error(`${where}.handler must be path/to/file.export with a single dot (the plugin splits on ".")`);
    else if (!existsSync(file)) report.error(`${where}.handler: ${parts[0]}.js does not exist under ${root} (npm run build writes dist/)`);
    else {
      try {
        const loaded = createRequire(import.meta.url)(file);
        if (typeof loaded[parts[1]] !== 'function') report.error(`${where}.handler: ${parts[0]}.js does not export a function "${parts[1]}"`);
      } catch (error) {
        report.error(`${where}.handler: ${parts[0]}.js fails to load: ${error.message}`);
      }
    }
  }
  if (fn.runtime !== undefined && !NODE_RUNTIMES.includes(fn.runtime)) report.error(`${where}.runtime "${fn.runtime}" is not one of ${NODE_RUNTIMES.join(', ')}`);
  // A public reconcile would let anyone drive LB writes (an event may carry serverIps); a public
  // inject or sweep would let anyone fill the queue. Triggers invoke private functions.
  if (fn.privacy !== 'private') report.error(`${where}.privacy must be "private" (got ${JSON.stringify(fn.privacy)})`);
  if (!MEMORY_TIERS.includes(fn.memoryLimit)) report.error(`${where}.memoryLimit ${JSON.stringify(fn.memoryLimit)} is not a Scaleway memory tier (${MEMORY_TIERS.join(', ')} MB)`);
  const timeout = /^(\d+)s$/.exec(String(fn.timeout ?? ''));
  if (!timeout || Number(timeout[1]) < 1) report.error(`${where}.timeout must be a whole number of seconds like "60s" (got ${JSON.stringify(fn.timeout)})`);
  const { minScale, maxScale } = fn;
  if (!Number.isInteger(minScale) || minScale < 0) report.error(`${where}.minScale must be a whole number >= 0`);
  if (!Number.isInteger(maxScale) || maxScale < 1 || maxScale > MAX_SCALE) report.error(`${where}.maxScale must be a whole number from 1 to ${MAX_SCALE}`);
  if (Number.isInteger(minScale) && Number.isInteger(maxScale) && minScale > maxScale) report.error(`${where}: minScale ${minScale} exceeds maxScale ${maxScale}`);
  if (fn.sandbox !== undefined && !['v1', 'v2'].includes(fn.sandbox)) report.error(`${where}.sandbox must be v1 or v2`);
  if (fn.httpOption !== undefined && !['enabled', 'redirected'].includes(fn.httpOption)) report.error(`${where}.httpOption must be enabled or redirected`);
  return timeout ? Number(timeout[1]) : undefined;
}

function checkEvents(name, fn, resolvedEnv, report) {
  const where = `functions.${name}.events`;
  const events = fn.events ?? [];
  if (!Array.isArray(events)) return report.error(`${where} must be a list`);
  const kinds = [];
  events.forEach((event, i) => {
    const keys = isPlainObject(event) ? Object.keys(event) : [];
    if (keys.length !== 1) return report.error(`${where}[${i}] must hold exactly one trigger type`);
    const [kind] = keys;
    kinds.push(kind);
    const trigger = event[kind] ?? {};
    if (!TRIGGER_TYPES.includes(kind)) return report.error(`${where}[${i}]: trigger type "${kind}" is not supported (${TRIGGER_TYPES.join(', ')})`);
    if (kind === 'schedule') {
      for (const problem of cronProblems(trigger.rate)) report.error(`${where}[${i}].schedule.rate: ${problem}`);
      if (trigger.input !== undefined && !isPlainObject(trigger.input)) report.error(`${where}[${i}].schedule.input must be a map (the cron's JSON args)`);
    }
    if (kind === 'sqs') {
      if (!TRIGGER_NAME.test(String(trigger.name ?? ''))) report.error(`${where}[${i}].sqs.name must match ${TRIGGER_NAME}`);
      if (!isUnset(trigger.queue) && !SQS_QUEUE_NAME.test(String(trigger.queue ?? ''))) report.error(`${where}[${i}].sqs.queue "${trigger.queue}" must be a queue name matching ${SQS_QUEUE_NAME} (not a URL)`);
      if (trigger.projectId !== undefined && !isUnset(trigger.projectId) && !UUID.test(trigger.projectId)) report.error(`${where}[${i}].sqs.projectId must be a project UUID`);
      if (trigger.region !== undefined && !isUnset(trigger.region) && !REGIONS.includes(trigger.region)) report.error(`${where}[${i}].sqs.region must be one of ${REGIONS.join(', ')}`);
    }
  });
  const wanted = { reconcile: ['sqs'], inject: [], sweep: ['schedule'] }[name];
  if (wanted && kinds.join(',') !== wanted.join(',')) {
    report.error(`${where}: ${name} needs ${wanted.length ? `exactly one ${wanted[0]} trigger` : 'no trigger (it is called over HTTP)'}, found [${kinds.join(', ')}]`);
  }
  if (name === 'reconcile') {
    const queue = events.find((e) => isPlainObject(e) && e.sqs)?.sqs.queue;
    const url = resolvedEnv.RECONCILE_QUEUE_URL;
    if (typeof queue === 'string' && !isUnset(queue) && !queue.endsWith('-reconcile')) {
      report.error(`${where}: the queue "${queue}" is not a <prefix>-reconcile queue made by "lbsync provision"`);
    }
    if (typeof queue === 'string' && !isUnset(queue) && typeof url === 'string' && !isUnset(url) && url.split('/').pop() !== queue) {
      report.error(`${where}: the trigger reads "${queue}" but RECONCILE_QUEUE_URL points at ${url}`);
    }
  }
  if (name === 'sweep') {
    const input = events.find((e) => isPlainObject(e) && e.schedule)?.schedule.input ?? {};
    const unknown = isPlainObject(input) ? Object.keys(input).filter((k) => !['targets', 'dryRun'].includes(k)) : [];
    if (unknown.length > 0) report.error(`${where}: the sweep's input accepts only targets and dryRun (found ${unknown.join(', ')})`);
  }
}

function checkEnvironment(provider, functions, bundleNames, report) {
  const levels = [['provider', provider], ...FUNCTIONS.map((n) => [`functions.${n}`, functions[n] ?? {}])];
  for (const [where, holder] of levels) {
    for (const kind of ['env', 'secret']) {
      const map = holder[kind];
      if (map === undefined || map === null) continue;
      if (!isPlainObject(map)) {
        report.error(`${where}.${kind} must be a map of NAME: value`);
        continue;
      }
      for (const [key, value] of Object.entries(map)) {
        const at = `${where}.${kind}.${key}`;
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) report.error(`${at}: not a valid variable name`);
        if (key.startsWith('SCW_')) report.error(`${at}: SCW_* names are reserved inside Scaleway Functions; the code reads LBSYNC_${key}`);
        if (typeof value !== 'string') report.error(`${at}: values must be strings (quote numbers and booleans)`);
        else if (!isUnset(value) && kind === 'env' && value.length > MAX_ENV_CHARS) report.error(`${at}: ${value.length} characters; Scaleway caps a variable at ${MAX_ENV_CHARS} (a secret may hold ${MAX_SECRET_BYTES} bytes)`);
        else if (!isUnset(value) && kind === 'secret' && Buffer.byteLength(value) > MAX_SECRET_BYTES) report.error(`${at}: over ${MAX_SECRET_BYTES} bytes`);
        const entry = ENV_CATALOG[key];
        if (!entry && !key.startsWith('SCW_')) report.error(`${at}: no bundle reads ${key}`);
        if (!entry) continue;
        if (entry.forbidden) {
          report.error(`${at}: must not be deployed: ${entry.forbidden}`);
          continue;
        }
        if (entry.secret && kind === 'env') report.error(`${at}: a credential; move it under "secret"`);
        if (!entry.secret && !entry.eitherKind && kind === 'secret') report.error(`${at}: not a credential; keep it under "env" so it shows in the console`);
        if (entry.in !== ALL && where === 'provider') report.error(`${at}: only ${entry.in.join(', ')} needs it; set it on that function, not the namespace`);
        if (entry.in !== ALL && where.startsWith('functions.') && !entry.in.includes(where.slice('functions.'.length))) {
          report.error(`${at}: only ${entry.in.join(', ')} needs it`);
        }
      }
    }
  }
  const effective = {};
  for (const name of FUNCTIONS) {
    const fn = functions[name] ?? {};
    const merged = { ...(provider.env ?? {}), ...(fn.env ?? {}), ...(provider.secret ?? {}), ...(fn.secret ?? {}) };
    effective[name] = merged;
    for (const [key, entry] of Object.entries(ENV_CATALOG)) {
      const needed = entry.required && (entry.in === ALL || entry.in.includes(name));
      if (needed && !(key in merged)) report.error(`functions.${name}: ${key} is required by the ${name} bundle and serverless.yml does not provide it`);
    }
  }
  for (const key of bundleNames) {
    if (!ENV_CATALOG[key]) report.error(`the bundles read ${key}, which neither serverless.yml nor this check's catalog knows: provide it and add it to ENV_CATALOG`);
  }
  if (bundleNames.size > 0) {
    for (const key of Object.keys(ENV_CATALOG)) {
      if (!bundleNames.has(key)) report.error(`ENV_CATALOG lists ${key}, which no bundle reads any more`);
    }
  }
  return effective;
}

function checkTiming(reconcile, timeoutSeconds, env, report) {
  if (timeoutSeconds === undefined) return;
  const value = (name) => {
    const raw = env[name];
    return raw === undefined || isUnset(raw) ? TIMING_DEFAULTS[name] : Number(raw);
  };
  const hold = value('LBSYNC_MAX_HOLD_MS');
  const wait = value('LBSYNC_WAIT_BUDGET_MS');
  const request = value('LBSYNC_REQUEST_TIMEOUT_MS');
  if (![hold, wait, request].every(Number.isFinite)) return report.error('functions.reconcile: LBSYNC_MAX_HOLD_MS, LBSYNC_WAIT_BUDGET_MS and LBSYNC_REQUEST_TIMEOUT_MS must be numbers');
  if (hold + wait + request > timeoutSeconds * 1000) {
    report.error(`functions.reconcile: hold ${hold} ms + wait budget ${wait} ms + one request ${request} ms exceed the ${timeoutSeconds} s timeout; the platform would cut the invocation and redeliver`);
  }
}

/** The real plugin's own offline validation, when it is installed. */
async function runPluginValidation(config, pluginDir, root, report) {
  const require = createRequire(join(resolve(pluginDir), 'noop.js'));
  let validate;
  let version;
  try {
    validate = require('serverless-scaleway-functions/shared/validate');
    version = require('serverless-scaleway-functions/package.json').version;
  } catch {
    return 'not installed (equivalent checks only)';
  }
  const provider = config.provider ?? {};
  const context = {
    ...validate,
    runtime: provider.runtime,
    provider: { scwRegion: provider.scwRegion ?? 'fr-par' },
    serverless: { service: { provider, functions: structuredClone(config.functions ?? {}), custom: config.custom } },
  };
  const cwd = process.cwd();
  process.chdir(root); // the plugin looks for handler files relative to the working directory
  try {
    context.validateRegion();
    const errors = [...(await context.validateApplications([])), ...context.validateEnv(provider.env)];
    for (const error of errors) report.error(`serverless-scaleway-functions ${version}: ${error}`);
  } catch (error) {
    report.error(`serverless-scaleway-functions ${version}: ${error.message}`);
  } finally {
    process.chdir(cwd);
  }
  return `serverless-scaleway-functions ${version} validate module ran`;
}

function redactSecrets(config) {
  const copy = structuredClone(config);
  const hide = (map) => map && Object.keys(map).forEach((k) => { if (!isUnset(map[k])) map[k] = '<redacted>'; });
  hide(copy.provider?.secret);
  if (copy.provider?.scwToken && !isUnset(copy.provider.scwToken)) copy.provider.scwToken = '<redacted>';
  for (const fn of Object.values(copy.functions ?? {})) hide(fn?.secret);
  return copy;
}

export async function validateServerlessConfig({ configPath, root, env = process.env, requireEnv = false, pluginDir }) {
  const errors = [];
  const unset = new Map();
  const report = {
    error: (message) => errors.push(message),
    unset: (name, path) => unset.set(name, [...(unset.get(name) ?? []), path]),
  };
  let YAML;
  try {
    YAML = await import('yaml');
  } catch {
    throw new Error("the devDependency 'yaml' is missing (npm i -D -E yaml@2.9.1)");
  }
  const raw = YAML.parse(readFileSync(configPath, 'utf8'));
  const config = resolveVariables(raw, env, report);
  const provider = config.provider ?? {};
  const functions = config.functions ?? {};

  if (!(config.plugins ?? []).includes('serverless-scaleway-functions')) report.error('plugins must list serverless-scaleway-functions');
  if (provider.name !== 'scaleway') report.error('provider.name must be scaleway');
  if (!NODE_RUNTIMES.includes(provider.runtime)) report.error(`provider.runtime "${provider.runtime}" is not one of ${NODE_RUNTIMES.join(', ')}`);
  if (!REGIONS.includes(provider.scwRegion)) report.error(`provider.scwRegion must be one of ${REGIONS.join(', ')}`);
  for (const key of ['scwToken', 'scwProject']) {
    const value = provider[key];
    if (value !== undefined && !isUnset(value) && String(value).length !== 36) report.error(`provider.${key} must be 36 characters (a secret key or project ID)`);
  }
  const patterns = config.package?.patterns;
  if (!Array.isArray(patterns) || patterns[0] !== '!**' || !patterns.includes('dist/**') || patterns.slice(1).some((p) => !String(p).startsWith('dist/'))) {
    report.error('package.patterns must be ["!**", "dist/**"] (only the bundles and dist/package.json are shipped)');
  }
  if (config.package?.individually || config.package?.artifact) report.error('package.individually/artifact: the plugin uploads the one service archive .serverless/<service>.zip');
  const distType = join(root, 'dist', 'package.json');
  if (existsSync(distType) && JSON.parse(readFileSync(distType, 'utf8')).type !== 'commonjs') report.error('dist/package.json must say {"type":"commonjs"}: the bundles are CommonJS');

  const names = Object.keys(functions);
  const missing = FUNCTIONS.filter((n) => !names.includes(n));
  const extra = names.filter((n) => !FUNCTIONS.includes(n));
  if (missing.length > 0) report.error(`functions: missing ${missing.join(', ')}`);
  if (extra.length > 0) report.error(`functions: unknown ${extra.join(', ')} (there are bundles for ${FUNCTIONS.join(', ')} only)`);

  const bundleNames = namesReadByBundles(root);
  const effective = checkEnvironment(provider, functions, bundleNames, report);
  const timeouts = {};
  for (const name of FUNCTIONS.filter((n) => functions[n])) {
    timeouts[name] = checkFunctionShape(name, functions[name], root, report);
    checkEvents(name, functions[name], effective[name], report);
  }
  if (functions.reconcile) checkTiming(functions.reconcile, timeouts.reconcile, effective.reconcile, report);

  if (requireEnv) {
    for (const [name, paths] of unset) report.error(`${name} is not set in this environment (used at ${paths.join(', ')})`);
  }
  const plugin = await runPluginValidation(config, pluginDir ?? root, root, report);
  return {
    ok: errors.length === 0,
    errors,
    plugin,
    deployerEnv: [...unset.keys()],
    bundleEnv: [...bundleNames].sort(),
    resolved: redactSecrets(config),
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      // Several --config files are checked in one run (the test's broken variants); --json then prints an array.
      config: { type: 'string', multiple: true, default: ['serverless.yml'] },
      root: { type: 'string', default: '.' },
      'require-env': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      plugin: { type: 'string' },
    },
  });
  const root = resolve(values.root);
  const results = [];
  try {
    for (const config of values.config) {
      results.push(await validateServerlessConfig({
        configPath: resolve(config),
        root,
        requireEnv: values['require-env'],
        ...(values.plugin && { pluginDir: values.plugin }),
      }));
    }
  } catch (error) {
    process.stderr.write(`validate-serverless: ${error.message}\n`);
    process.exit(2);
  }
  if (values.json) {
    const output = results.length === 1 ? results[0] : results;
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
  } else {
    results.forEach((result, i) => {
      for (const error of result.errors) process.stdout.write(`error  ${error}\n`);
      process.stdout.write(`plugin: ${result.plugin}\n`);
      if (result.deployerEnv.length > 0) process.stdout.write(`set at deploy time: ${result.deployerEnv.join(' ')}\n`);
      const name = values.config[i];
      process.stdout.write(result.ok ? `${name}: valid\n` : `${name}: ${result.errors.length} problem(s)\n`);
    });
  }
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
