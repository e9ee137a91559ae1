// Service-wide settings: the plugin, the provider block, what is packaged, and which functions exist.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FUNCTIONS } from '../env-catalog.mjs';
import { isUnset } from '../resolve.mjs';
import { NODE_RUNTIMES, REGIONS } from '../scaleway-limits.mjs';

/** @typedef {import('../report.mjs').Report} Report */

/** plugins, and provider name, runtime, region and credentials' shape. */
export function checkProvider(config, report) {
  const provider = config.provider ?? {};
  if (!(config.plugins ?? []).includes('serverless-scaleway-functions')) report.error('plugins must list serverless-scaleway-functions');
  if (provider.name !== 'scaleway') report.error('provider.name must be scaleway');
  if (!NODE_RUNTIMES.includes(provider.runtime)) report.error(`provider.runtime "${provider.runtime}" is not one of ${NODE_RUNTIMES.join(', ')}`);
  if (!REGIONS.includes(provider.scwRegion)) report.error(`provider.scwRegion must be one of ${REGIONS.join(', ')}`);
  for (const key of ['scwToken', 'scwProject']) {
    const value = provider[key];
    if (value !== undefined && !isUnset(value) && String(value).length !== 36) report.error(`provider.${key} must be 36 characters (a secret key or project ID)`);
  }
}

/** Only the bundles and dist/package.json ship, in one service archive, and the bundles load as CommonJS. */
export function checkPackage(config, root, report) {
  const patterns = config.package?.patterns;
  if (!Array.isArray(patterns) || patterns[0] !== '!**' || !patterns.includes('dist/**') || patterns.slice(1).some((p) => !String(p).startsWith('dist/'))) {
    report.error('package.patterns must be ["!**", "dist/**"] (only the bundles and dist/package.json are shipped)');
  }
  if (config.package?.individually || config.package?.artifact) report.error('package.individually/artifact: the plugin uploads the one service archive .serverless/<service>.zip');
  const distType = join(root, 'dist', 'package.json');
  if (existsSync(distType) && JSON.parse(readFileSync(distType, 'utf8')).type !== 'commonjs') report.error('dist/package.json must say {"type":"commonjs"}: the bundles are CommonJS');
}

/** Exactly the functions there are bundles for. */
export function checkFunctionList(functions, report) {
  const names = Object.keys(functions);
  const missing = FUNCTIONS.filter((n) => !names.includes(n));
  const extra = names.filter((n) => !FUNCTIONS.includes(n));
  if (missing.length > 0) report.error(`functions: missing ${missing.join(', ')}`);
  if (extra.length > 0) report.error(`functions: unknown ${extra.join(', ')} (there are bundles for ${FUNCTIONS.join(', ')} only)`);
}
