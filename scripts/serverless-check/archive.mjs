// What `serverless package` put in the deployment archive: exactly the build's outputs for the functions of
// serverless.yml (no sources, no node_modules, no source maps, no leftovers of other builds), and none of
// the deployment's values (the archive is code; values reach the functions as variables and secrets).
import { dirname } from 'node:path';

/**
 * @typedef {object} ArchiveAudit
 * @property {string[]} entries  the files in the archive, sorted
 * @property {string[]} errors
 */

/**
 * @param {object} input
 * @param {Map<string, Buffer>} input.files  the archive's files (zip.mjs)
 * @param {Buffer} input.raw                 the archive as stored, for values in compressed or unlisted bytes
 * @param {Record<string, { handler?: string }>} input.functions  serverless.yml's functions
 * @param {string[]} input.functionOutputs   what the build writes next to each handler (build.mjs FUNCTION_OUTPUTS)
 * @param {string[]} input.sharedOutputs     what else it writes (build.mjs SHARED_OUTPUTS)
 * @param {Record<string, string>} input.placeholders  variable name -> the value it was given for packaging
 * @returns {ArchiveAudit}
 */
export function auditArchive({ files, raw, functions, functionOutputs, sharedOutputs, placeholders }) {
  const errors = [];
  const entries = [...files.keys()].sort();
  const expected = new Set(sharedOutputs);
  for (const fn of Object.values(functions)) {
    if (typeof fn?.handler !== 'string') continue;
    const dir = dirname(fn.handler.split('.')[0] ?? '');
    for (const output of functionOutputs) expected.add(`${dir}/${output}`);
  }
  for (const path of expected) {
    if (!files.has(path)) errors.push(`${path} is missing from the archive (npm run build writes it; package.patterns must keep it)`);
  }
  for (const entry of entries) {
    if (!expected.has(entry))
      errors.push(
        `${entry} is in the archive but is not a build output of a function in serverless.yml: only dist/<function>/${functionOutputs.join('|')} and ${sharedOutputs.join(', ')} are deployed (package.patterns, or a stale dist/: rm -rf dist && npm run build)`,
      );
  }
  const distType = files.get('dist/package.json');
  if (distType && JSON.parse(distType.toString('utf8')).type !== 'commonjs')
    errors.push('dist/package.json in the archive must say {"type":"commonjs"}: the bundles are CommonJS');
  for (const [name, value] of Object.entries(placeholders)) {
    const where = [...files].filter(([, content]) => content.includes(value)).map(([path]) => path);
    if (where.length > 0 || raw.includes(value))
      errors.push(
        `the value given to ${name} while packaging is inside the archive (${where.join(', ') || 'archive bytes'}): deployment values must reach the functions as variables or secrets, never in the code`,
      );
  }
  return { entries, errors };
}
