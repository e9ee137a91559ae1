// What serverless-scaleway-functions would create, read from the requests it sent to the Functions API
// stand-in during a dry-run deploy: every function of serverless.yml with every setting it forwards (a
// misspelt key is dropped silently: osls does not validate the plugin's keys), variables the API accepts
// (strings), secret values only among secrets and the deployer's key in no request body, one trigger per
// event, and the archive that was packaged as the code of every function.
import { isPlainObject } from './resolve.mjs';

/** API field -> the serverless.yml key the plugin reads it from (deploy/lib/createFunctions.js). */
const FORWARDED = {
  runtime: 'runtime (provider or function)',
  handler: 'handler',
  memory_limit: 'memoryLimit',
  timeout: 'timeout',
  min_scale: 'minScale',
  max_scale: 'maxScale',
  privacy: 'privacy',
  http_option: 'httpOption',
  sandbox: 'sandbox',
};

/**
 * @typedef {object} DeployedFunction  what the plugin asked the API for, one function; names only, never values
 * @property {string} name
 * @property {string} runtime
 * @property {number} memoryMb
 * @property {string} timeout
 * @property {[number, number]} scale
 * @property {string} privacy
 * @property {string} httpOption
 * @property {string} sandbox
 * @property {string[]} env      variable names it gets (namespace and its own)
 * @property {string[]} sentEmpty  those among them whose value is sent as "" (set, and empty)
 * @property {string[]} secrets  secret names it gets (namespace and its own)
 * @property {string[]} triggers
 */

/**
 * @param {object} input
 * @param {import('./functions-api-stand-in.mjs').StandIn} input.standIn  after the deploy ended
 * @param {Record<string, any>} input.config  serverless.yml as written
 * @param {Buffer} input.archive  .serverless/<service>.zip as packaged
 * @param {import('./placeholders.mjs').Placeholders} input.placeholders
 * @returns {{ functions: DeployedFunction[], errors: string[] }}
 */
export function auditDeployment({ standIn, config, archive, placeholders }) {
  const errors = [];
  const { requests, functionIds, uploads, unexpected } = standIn;
  const sent = (method, path) => requests.filter((r) => r.method === method && r.path === path).map((r) => r.body ?? {});

  for (const call of unexpected)
    errors.push(`the plugin called ${call}, which the Functions API stand-in does not answer (a plugin upgrade?)`);
  if (requests.some((r) => !r.authenticated))
    errors.push('a request to the Functions API did not carry the deployer key (provider.scwToken) as X-Auth-Token');

  const namespaces = sent('POST', 'namespaces');
  if (namespaces.length !== 1 || namespaces[0]?.name !== config.service)
    errors.push(`the plugin created ${namespaces.length} namespace(s); expected one named ${config.service} (service:)`);
  const namespace = namespaces[0] ?? {};

  const created = sent('POST', 'functions');
  const expected = Object.keys(config.functions ?? {});
  const names = created.map((f) => f.name).sort();
  if (names.join() !== [...expected].sort().join())
    errors.push(`the plugin created functions [${names.join(', ')}]; serverless.yml has [${expected.join(', ')}]`);

  const triggers = [...sent('POST', 'crons'), ...sent('POST', 'triggers')];
  const functions = created.map((fn) => {
    const where = `functions.${fn.name}`;
    for (const [field, key] of Object.entries(FORWARDED)) {
      if (fn[field] === undefined || fn[field] === null)
        errors.push(`${where}: the plugin sent no ${field}; serverless.yml must set ${key} (a misspelt key is dropped without a word)`);
    }
    for (const [holder, values] of [
      ['namespace', namespace],
      [where, fn],
    ]) {
      for (const [key, value] of Object.entries(values.environment_variables ?? {})) {
        if (typeof value !== 'string')
          errors.push(`${holder}: the plugin sends ${key} as a ${typeof value}; the API takes strings only (quote it in serverless.yml)`);
      }
    }
    const id = functionIds.get(fn.name);
    const upload = uploads.get(id);
    if (!upload?.equals(archive)) errors.push(`${where}: the code uploaded is not the archive serverless package wrote`);
    if (sent('POST', `functions/${id}/deploy`).length !== 1) errors.push(`${where}: the plugin did not deploy it`);

    const own = triggers.filter((t) => t.function_id === id);
    const events = config.functions?.[fn.name]?.events ?? [];
    for (const kind of ['schedule', 'sqs']) {
      const wanted = events.filter((e) => isPlainObject(e) && kind in e).length;
      const made = own.filter((t) => (kind === 'schedule' ? 'schedule' in t : 'scw_sqs_config' in t)).length;
      if (made !== wanted) errors.push(`${where}: serverless.yml has ${wanted} ${kind} event(s) but the plugin created ${made} trigger(s)`);
    }
    return {
      name: fn.name,
      runtime: fn.runtime,
      memoryMb: fn.memory_limit,
      timeout: fn.timeout,
      scale: [fn.min_scale, fn.max_scale],
      privacy: fn.privacy,
      httpOption: fn.http_option,
      sandbox: fn.sandbox,
      env: Object.keys({ ...namespace.environment_variables, ...fn.environment_variables }).sort(),
      sentEmpty: Object.entries({ ...namespace.environment_variables, ...fn.environment_variables })
        .filter(([, value]) => value === '')
        .map(([key]) => key)
        .sort(),
      secrets: [
        ...new Set([...(namespace.secret_environment_variables ?? []), ...(fn.secret_environment_variables ?? [])].map((s) => s.key)),
      ].sort(),
      triggers: own.map((t) =>
        t.schedule !== undefined
          ? `cron "${t.schedule}" args ${JSON.stringify(t.args)}`
          : `queue ${t.scw_sqs_config?.queue} (${t.scw_sqs_config?.mnq_region})`,
      ),
    };
  });

  errors.push(...secretsOutOfPlace(requests, placeholders));
  return { functions: functions.sort((a, b) => expected.indexOf(a.name) - expected.indexOf(b.name)), errors };
}

/** A secret's value anywhere but among secret_environment_variables, and the deployer's key in any body. */
function secretsOutOfPlace(requests, { env, secrets, deployerKey }) {
  const errors = new Set();
  const visit = (node, path, request) => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) visit(item, `${path}[${i}]`, request);
      return;
    }
    if (isPlainObject(node)) {
      for (const [key, value] of Object.entries(node)) visit(value, path ? `${path}.${key}` : key, request);
      return;
    }
    if (typeof node !== 'string') return;
    for (const name of secrets) {
      if (!node.includes(env[name] ?? '\u0000')) continue;
      const asSecret = /^secret_environment_variables\[\d+\]\.value$/.test(path);
      const subject = `${request.method} ${request.path.split('?')[0]}${request.body?.name ? ` (${request.body.name})` : ''}`;
      if (name === deployerKey)
        errors.add(`the deployer key (${name}) is sent in ${subject} ${path}: it is for the plugin only, never for the functions`);
      else if (!asSecret) errors.add(`the value of ${name} is sent in ${subject} ${path}, not as a secret: move it under "secret"`);
    }
  };
  for (const request of requests) visit(request.body, '', request);
  return [...errors];
}
