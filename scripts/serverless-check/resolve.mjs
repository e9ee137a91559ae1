// Loads serverless.yml and resolves ${env:NAME[, fallback]} from a given environment.
import { readFileSync } from 'node:fs';

/** @typedef {import('./report.mjs').Report} Report */

/** What an ${env:...} with no value and no fallback resolves to. */
const unsetMarker = (name) => `<unset:${name}>`;

/** True when a resolved value holds an ${env:...} that this environment leaves unset. */
export const isUnset = (value) => typeof value === 'string' && /<unset:[A-Za-z0-9_]+>/.test(value);

export const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Resolves ${env:A[, env:B][, 'literal']} like the Serverless Framework v3 (an empty variable counts as unset); other sources are refused. */
export function resolveVariables(node, env, report, path = '') {
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
    return unsetMarker(names[0]);
  });
}

/**
 * Parses the file at configPath and resolves its variables.
 * @param {string} configPath
 * @param {Record<string, string | undefined>} env
 * @param {Report} report
 */
export async function loadServerlessConfig(configPath, env, report) {
  let YAML;
  try {
    YAML = await import('yaml');
  } catch {
    throw new Error("the devDependency 'yaml' is missing (npm i -D -E yaml@2.9.1)");
  }
  const raw = YAML.parse(readFileSync(configPath, 'utf8'));
  return resolveVariables(raw, env, report);
}
