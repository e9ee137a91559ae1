// Where the functions get their targets: LBSYNC_TARGETS, or the file `npm run build -- --targets FILE` ships in the
// archive (dist/targets.json). Both at once, the functions refuse to start; neither, they cannot either (told
// always when serverless.yml lacks LBSYNC_TARGETS; when it resolves empty, under --require-env, which has the values).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHIPPED_TARGETS } from '../../build.mjs';
import { isUnset } from '../resolve.mjs';

/** @typedef {import('../report.mjs').Report} Report */

/** The shipped targets file's text, when the build wrote one under root. */
export function readShippedTargets(root) {
  const path = join(root, SHIPPED_TARGETS);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** LBSYNC_TARGETS as serverless.yml resolves it, wherever it is set (namespace or function, env or secret). */
function targetsValues(provider, functions) {
  const holders = [['provider', provider], ...Object.entries(functions).map(([name, fn]) => [`functions.${name}`, fn ?? {}])];
  return holders.flatMap(([where, holder]) =>
    ['env', 'secret'].flatMap((kind) => {
      const value = holder?.[kind]?.LBSYNC_TARGETS;
      return value === undefined ? [] : [{ at: `${where}.${kind}.LBSYNC_TARGETS`, value }];
    }),
  );
}

/**
 * @param {Record<string, any>} provider
 * @param {Record<string, any>} functions
 * @param {string | undefined} shipped  the shipped targets file's text
 * @param {boolean} requireEnv  the deployer's values are checked (--require-env): an empty LBSYNC_TARGETS is then final
 * @param {Report} report
 */
export function checkTargetsSource(provider, functions, shipped, requireEnv, report) {
  const provided = targetsValues(provider, functions);
  const given = provided.filter(({ value }) => typeof value === 'string' && !isUnset(value) && value.trim() !== '');
  if (shipped === undefined && provided.length === 0) {
    report.error(
      `serverless.yml does not provide LBSYNC_TARGETS and the build ships no targets (${SHIPPED_TARGETS}): the functions would not start; add LBSYNC_TARGETS: \${env:LBSYNC_TARGETS, ''} under provider.env, or build with npm run build -- --targets FILE`,
    );
    return;
  }
  if (shipped !== undefined) {
    for (const { at } of given)
      report.error(
        `${at}: set, and the build ships targets too (${SHIPPED_TARGETS}, npm run build -- --targets): the functions refuse both; leave LBSYNC_TARGETS unset (serverless.yml sends it empty) or rebuild without --targets`,
      );
    return;
  }
  if (requireEnv && given.length === 0)
    report.error(
      `LBSYNC_TARGETS is empty and the build ships no targets (${SHIPPED_TARGETS}): the functions would not start; set LBSYNC_TARGETS, or build with npm run build -- --targets FILE`,
    );
}
