// The variables serverless.yml deploys, by this project's catalog: no reserved SCW_* name, sizes within
// Scaleway's limits, credentials under "secret", each on the functions that read it, none missing, and the
// catalog in step with what the bundles read. The targets' own keys (names the targets' credentials give) are
// secrets on reconcile and watch; when the targets are known here (LBSYNC_TARGETS resolved with --require-env, or the
// file the build ships, dist/targets.json), each one they name must be there and nothing else may. (That values are strings is checked on what the plugin sends: npm run package.)
import { ALL, ENV_CATALOG, FUNCTIONS, TARGET_KEY_VARIABLES, targetKeyVariables } from '../env-catalog.mjs';
import { isPlainObject, isUnset } from '../resolve.mjs';
import { MAX_ENV_CHARS, MAX_SECRET_BYTES } from '../scaleway-limits.mjs';

/** @typedef {import('../report.mjs').Report} Report */

/**
 * @param {Record<string, any>} provider
 * @param {Record<string, any>} functions
 * @param {Set<string>} bundleNames  the names the built bundles read (empty when none is built)
 * @param {Report} report
 * @param {string} [shipped]  the targets file the build ships (dist/targets.json), when it does
 * @returns {Record<string, Record<string, unknown>>} per function, the variables it gets (env and secret)
 */
export function checkEnvironment(provider, functions, bundleNames, report, shipped) {
  const levels = [['provider', provider], ...FUNCTIONS.map((n) => [`functions.${n}`, functions[n] ?? {}])];
  // The variables the targets' credentials name: known from the shipped file, or from LBSYNC_TARGETS when it is
  // resolved here (--require-env).
  const targets = shipped ?? provider.env?.LBSYNC_TARGETS ?? provider.secret?.LBSYNC_TARGETS;
  const named = isUnset(targets) ? undefined : targetKeyVariables(targets);
  for (const [where, holder] of levels) {
    for (const kind of ['env', 'secret']) {
      const map = holder[kind];
      if (map === undefined || map === null) continue;
      if (!isPlainObject(map)) {
        report.error(`${where}.${kind} must be a map of NAME: value`);
        continue;
      }
      for (const [key, value] of Object.entries(map)) checkVariable(where, kind, key, value, report, named);
    }
  }
  for (const [variable, by] of named ?? []) {
    for (const name of TARGET_KEY_VARIABLES.in) {
      const secrets = { ...(provider.secret ?? {}), ...(functions[name]?.secret ?? {}) };
      if (functions[name] && !(variable in secrets))
        report.error(`functions.${name}: ${variable} is named by ${by} and serverless.yml does not provide it under "secret"`);
    }
  }
  const effective = {};
  for (const name of FUNCTIONS) {
    const fn = functions[name] ?? {};
    const merged = { ...(provider.env ?? {}), ...(fn.env ?? {}), ...(provider.secret ?? {}), ...(fn.secret ?? {}) };
    effective[name] = merged;
    for (const [key, entry] of Object.entries(ENV_CATALOG)) {
      const needed = entry.required && (entry.in === ALL || entry.in.includes(name));
      if (needed && !(key in merged))
        report.error(`functions.${name}: ${key} is required by the ${name} bundle and serverless.yml does not provide it`);
    }
  }
  checkCatalogMatchesBundles(bundleNames, report);
  return effective;
}

/**
 * A variable no bundle reads by name: a target's key (its credentials name it) belongs under "secret" on the
 * functions that read those. With the targets unknown here, a secret on those functions is taken for one.
 * @param {Map<string, string> | undefined} named  the variables the targets' credentials name, when known
 */
function checkTargetKey(at, where, kind, key, named, report) {
  const by = named?.get(key);
  if (named !== undefined && by === undefined) {
    report.error(
      `${at}: no bundle reads ${key}, and no target's credentials name it (the environment catalogue, shared/platform/environment-catalogue.json, lists every variable read)`,
    );
    return;
  }
  const whose = by ?? "a target's credentials (if they name it)";
  if (kind === 'env') {
    report.error(
      named === undefined
        ? `${at}: no bundle reads ${key} (the environment catalogue, shared/platform/environment-catalogue.json, lists every variable read); if a target's credentials name it, it is a credential: move it under "secret"`
        : `${at}: a credential named by ${whose}; move it under "secret"`,
    );
    return;
  }
  const readers = TARGET_KEY_VARIABLES.in;
  if (where === 'provider' || !readers.includes(where.slice('functions.'.length)))
    report.error(`${at}: a target's key; only ${readers.join(', ')} need it, set it on those functions`);
}

/**
 * One variable at one level.
 * @param {string} where  provider or functions.<name>
 * @param {'env' | 'secret'} kind
 * @param {Map<string, string> | undefined} named  the variables the targets' credentials name, when known
 */
function checkVariable(where, kind, key, value, report, named) {
  const at = `${where}.${kind}.${key}`;
  if (key.startsWith('SCW_')) report.error(`${at}: SCW_* names are reserved inside Scaleway Functions; the code reads LBSYNC_${key}`);
  if (typeof value === 'string' && !isUnset(value)) {
    if (kind === 'env' && value.length > MAX_ENV_CHARS)
      report.error(
        `${at}: ${value.length} characters; Scaleway caps a variable at ${MAX_ENV_CHARS} (a secret may hold ${MAX_SECRET_BYTES} bytes)`,
      );
    if (kind === 'secret' && Buffer.byteLength(value) > MAX_SECRET_BYTES) report.error(`${at}: over ${MAX_SECRET_BYTES} bytes`);
  }
  const entry = ENV_CATALOG[key];
  if (!entry && !key.startsWith('SCW_')) checkTargetKey(at, where, kind, key, named, report);
  if (!entry) return;
  if (entry.forbidden) {
    report.error(`${at}: must not be deployed: ${entry.forbidden}`);
    return;
  }
  if (entry.exactly !== undefined && value !== entry.exactly) {
    report.error(
      `${at} must be "${entry.exactly}" (scripts/function-sizing.mjs): the V8 code cache is made under these node options and V8 turns it down under others; npm run bench measures the 128 MB tier with them`,
    );
  }
  if (entry.secret && kind === 'env') report.error(`${at}: a credential; move it under "secret"`);
  if (!entry.secret && !entry.eitherKind && kind === 'secret')
    report.error(`${at}: not a credential; keep it under "env" so it shows in the console`);
  if (entry.in !== ALL && where === 'provider')
    report.error(`${at}: only ${entry.in.join(', ')} needs it; set it on that function, not the namespace`);
  if (entry.in !== ALL && where.startsWith('functions.') && !entry.in.includes(where.slice('functions.'.length))) {
    report.error(`${at}: only ${entry.in.join(', ')} needs it`);
  }
}

/** Every name the bundles read is catalogued, and every catalogued name is still read. */
function checkCatalogMatchesBundles(bundleNames, report) {
  for (const key of bundleNames) {
    if (!ENV_CATALOG[key])
      report.error(
        `the bundles read ${key}, which the environment catalogue lacks: add it to shared/platform/environment-catalogue.json (and provide it in serverless.yml)`,
      );
  }
  if (bundleNames.size > 0) {
    for (const [key, entry] of Object.entries(ENV_CATALOG)) {
      if (entry.exactly === undefined && !entry.cliOnly && !bundleNames.has(key))
        report.error(`the environment catalogue lists ${key} for the functions, and no bundle reads it any more`);
    }
  }
}
