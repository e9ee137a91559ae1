// Stand-in values for the deployer's environment, so the Serverless Framework can resolve serverless.yml
// without a real deployment environment: one for every ${env:...} that has no literal default.
// The list comes from serverless.yml itself, so a variable added there needs no second list.
import { createHash } from 'node:crypto';
import { isPlainObject, variablesIn } from './resolve.mjs';

/**
 * A UUID-shaped value for name: 36 characters, which the plugin requires of the deployer's key and project,
 * distinct per name and the same on every run, so that finding it anywhere is evidence of a leak.
 * @param {string} name
 */
export function placeholderFor(name) {
  const hex = createHash('sha256').update(`scw-lb-sync placeholder ${name}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * @typedef {object} Placeholders
 * @property {Record<string, string>} env  the variables to set, name -> placeholder
 * @property {Set<string>} secrets         the names whose values serverless.yml deploys as secrets, and the deployer's key
 * @property {string | undefined} deployerKey  the name provider.scwToken reads: the deployer's own key, for the plugin only
 */

/**
 * For each ${env:A[, env:B]} with no literal default, a placeholder for its last candidate (the name the
 * deployment guide tells deployers to set; the earlier ones are optional overrides).
 * @param {Record<string, any>} config  serverless.yml as written (variables unresolved)
 * @returns {Placeholders}
 */
export function placeholderEnv(config) {
  const env = {};
  const secrets = new Set();
  let deployerKey;
  const visit = (node, path) => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) visit(item, `${path}[${i}]`);
      return;
    }
    if (isPlainObject(node)) {
      for (const [key, value] of Object.entries(node)) visit(value, path ? `${path}.${key}` : key);
      return;
    }
    if (typeof node !== 'string') return;
    for (const variable of variablesIn(node)) {
      if (variable.hasLiteral) continue;
      const name = variable.envNames.at(-1);
      if (name === undefined) continue;
      env[name] = placeholderFor(name);
      if (/(^|\.)secret\./.test(path) || path === 'provider.scwToken') secrets.add(name);
      if (path === 'provider.scwToken') deployerKey = name;
    }
  };
  visit(config, '');
  return { env, secrets, deployerKey };
}
