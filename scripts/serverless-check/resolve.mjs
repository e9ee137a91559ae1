// Loads serverless.yml and resolves ${env:NAME[, fallback]} from a given environment.
import { readFileSync } from 'node:fs';

/** @typedef {import('./report.mjs').Report} Report */

/** What an ${env:...} with no value and no fallback resolves to. */
const unsetMarker = (name) => `<unset:${name}>`;

/** True when a resolved value holds an ${env:...} that this environment leaves unset. */
export const isUnset = (value) => typeof value === 'string' && /<unset:[A-Za-z0-9_]+>/.test(value);

export const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

const VARIABLE = /\$\{([^{}]*)\}/g;
const candidatesOf = (inner) => inner.split(',').map((part) => part.trim());

/** The ${...} variables in a string, each as its comma-separated candidates (`${env:A, 'x'}` -> env:A, 'x'). */
export const variablesIn = (text) => [...text.matchAll(VARIABLE)].map((match) => candidatesOf(match[1]));

/** The variable name of an `env:NAME` candidate; undefined for any other. */
export const envNameOf = (candidate) => /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(candidate)?.[1];

/** The value of a literal candidate ('x', "x" or a number); undefined for any other. */
export function literalOf(candidate) {
  const quoted = /^'([^']*)'$|^"([^"]*)"$/.exec(candidate);
  if (quoted) return quoted[1] ?? quoted[2];
  return /^-?\d+(\.\d+)?$/.test(candidate) ? candidate : undefined;
}

/** Resolves ${env:A[, env:B][, 'literal']} like the Serverless Framework v3 (an empty variable counts as unset); other sources are refused. */
export function resolveVariables(node, env, report, path = '') {
  if (Array.isArray(node)) return node.map((item, i) => resolveVariables(item, env, report, `${path}[${i}]`));
  if (isPlainObject(node)) {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolveVariables(v, env, report, path ? `${path}.${k}` : k)]));
  }
  if (typeof node !== 'string' || !node.includes('${')) return node;
  return node.replace(VARIABLE, (whole, inner) => resolveOne(whole, candidatesOf(inner), env, report, path));
}

function resolveOne(whole, candidates, env, report, path) {
  for (const candidate of candidates) {
    const name = envNameOf(candidate);
    const literal = literalOf(candidate);
    if (name !== undefined) {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
    } else if (literal !== undefined) {
      return literal;
    } else {
      report.error(`${path}: ${whole} uses a variable source this check does not resolve (only env: and literals)`);
      return whole;
    }
  }
  const names = candidates.map(envNameOf).filter(Boolean);
  report.unset(names.join(' or '), path);
  return unsetMarker(names[0]);
}

/**
 * serverless.yml as written, variables unresolved.
 * @param {string} configPath
 * @returns {Promise<Record<string, any>>}
 */
export async function parseServerlessYaml(configPath) {
  let YAML;
  try {
    YAML = await import('yaml');
  } catch {
    throw new Error("the devDependency 'yaml' is missing (npm i -D -E yaml@2.9.1)");
  }
  return YAML.parse(readFileSync(configPath, 'utf8'));
}

/**
 * Parses the file at configPath and resolves its variables.
 * @param {string} configPath
 * @param {Record<string, string | undefined>} env
 * @param {Report} report
 */
export async function loadServerlessConfig(configPath, env, report) {
  return resolveVariables(await parseServerlessYaml(configPath), env, report);
}
