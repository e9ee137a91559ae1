// Loads serverless.yml as the Serverless Framework reads it and resolves its variables with the framework's own
// resolver: osls (a devDependency), the code `serverless print` runs, called in process.
//
// Why not run `serverless print` itself: it reads its own process.env, and at the first ${env:...} left unset it
// prints an error instead of the file. This check must judge a serverless.yml whose deployment values are not set
// (the offline check in `npm run package` runs with none) and tell which ones are missing (--require-env). So each
// ${env:A[, env:B]} without a fallback that the given environment leaves unset is first replaced by a marker,
// <unset:A>, then osls's resolver runs with its env source reading the given environment; file:, self:, opt: and
// strToBool: resolve as the CLI resolves them. Sources that need a deployment (ssm:, cf:, s3:...) are reported.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** @typedef {import('./report.mjs').Report} Report */

const require = createRequire(import.meta.url);

/** A module of osls's configuration code. */
function osls(path) {
  try {
    return require(`osls/lib/configuration/${path}`);
  } catch (error) {
    if (error.code === 'MODULE_NOT_FOUND') throw new Error("the devDependency 'osls' is missing (npm ci)");
    throw error;
  }
}

/** What an ${env:...} with no value and no fallback stands as. */
const unsetMarker = (name) => `<unset:${name}>`;

/** True when a resolved value holds an ${env:...} that this environment leaves unset. */
export const isUnset = (value) => typeof value === 'string' && /<unset:[A-Za-z0-9_]+>/.test(value);

export const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The ${...} variables of a string, as osls parses them: where each stands (the whole string when start is
 * undefined), the env names it tries in order, whether it has a literal fallback, and whether it uses another source.
 * @param {string} text
 * @returns {{ start?: number, end?: number, envNames: string[], hasLiteral: boolean, otherSource: boolean }[]}
 */
export function variablesIn(text) {
  const parsed = osls('variables/parse')(text) ?? [];
  return parsed.map(({ start, end, sources }) => ({
    start,
    end,
    envNames: sources.filter((s) => s.type === 'env' && typeof s.address?.value === 'string').map((s) => s.address.value),
    hasLiteral: sources.some((s) => s.type === undefined),
    otherSource: sources.some((s) => s.type !== undefined && (s.type !== 'env' || typeof s.address?.value !== 'string')),
  }));
}

/** Calls visit(value, pathKeys) on every string of the tree; its answer replaces the string. */
function mapStrings(node, visit, keys = []) {
  if (Array.isArray(node)) return node.map((item, i) => mapStrings(item, visit, [...keys, String(i)]));
  if (isPlainObject(node)) return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, mapStrings(v, visit, [...keys, k])]));
  return typeof node === 'string' ? visit(node, keys) : node;
}

const humanPath = (keys) => osls('variables/humanize-property-path-keys')(keys);

/**
 * serverless.yml as the framework reads it (YAML with CloudFormation tags), variables unresolved.
 * @param {string} configPath
 * @returns {Promise<Record<string, any>>}
 */
export async function parseServerlessYaml(configPath) {
  return await osls('read')(configPath);
}

/** Marks each ${env:...} without a fallback that env leaves unset, and reports it with where it is used. */
function markUnset(config, env, report) {
  return mapStrings(config, (text, keys) => {
    let marked = text;
    // From the last variable back, so that the positions of the earlier ones still hold.
    for (const variable of variablesIn(text).reverse()) {
      const unset = variable.envNames.length > 0 && !variable.hasLiteral && !variable.otherSource;
      if (!unset || variable.envNames.some((name) => env[name] !== undefined && env[name] !== null)) continue;
      report.unset(variable.envNames.join(' or '), humanPath(keys));
      const marker = unsetMarker(variable.envNames[0]);
      marked = variable.start === undefined ? marker : `${marked.slice(0, variable.start)}${marker}${marked.slice(variable.end)}`;
    }
    return marked;
  });
}

/**
 * Parses the file at configPath and resolves its variables from env, as osls would with env as its environment.
 * @param {string} configPath
 * @param {Record<string, string | undefined>} env
 * @param {Report} report
 */
export async function loadServerlessConfig(configPath, env, report) {
  const configuration = markUnset(await parseServerlessYaml(configPath), env, report);
  const sources = {
    env: { resolve: ({ address }) => ({ value: env[address] ?? null }) },
    file: osls('variables/sources/file'),
    opt: osls('variables/sources/opt'),
    self: osls('variables/sources/self'),
    strToBool: osls('variables/sources/str-to-bool'),
  };
  const failedAt = new Set();
  try {
    await osls('variables')({ serviceDir: dirname(configPath), configuration, options: {}, sources });
  } catch (error) {
    // "Variables resolution errored with:" and one line per variable, or a single message.
    const lines = String(error.message).split('\n');
    for (const line of lines.length > 1 ? lines.slice(1) : lines) {
      const message = line.replace(/^\s*-\s*/, '').replace(/,$/, '');
      failedAt.add(/^Cannot resolve variable at "([^"]+)"/.exec(message)?.[1]);
      report.error(message);
    }
  }
  // What osls leaves as written without an error: a source it cannot resolve here.
  mapStrings(configuration, (text, keys) => {
    if (variablesIn(text).length > 0 && !failedAt.has(humanPath(keys)))
      report.error(
        `${humanPath(keys)}: ${text} uses a variable source this check cannot resolve offline (env, self, opt, file, strToBool only)`,
      );
    return text;
  });
  return configuration;
}
