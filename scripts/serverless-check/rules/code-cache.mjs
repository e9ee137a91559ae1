// The V8 code cache shipped in dist/ (scripts/code-cache/): made by the runtime's Node version, or the
// functions start without it (correct, but slower and with ~5 MB more at load). A warning, not an error:
// the deployment works either way, and CI builds under whatever Node it has.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * @param {string[]} names  the functions
 * @param {string | undefined} runtime  provider.runtime, e.g. node22
 * @param {string} root  the directory holding dist/
 * @returns {string[]} warnings
 */
export function checkCodeCache(names, runtime, root) {
  const runtimeMajor = /^node(\d+)$/.exec(String(runtime ?? ''))?.[1];
  if (!runtimeMajor) return [];
  const warnings = [];
  for (const name of names) {
    const file = join(root, 'dist', name, 'bundle.cache.json');
    if (!existsSync(file)) continue;
    const { node } = JSON.parse(readFileSync(file, 'utf8'));
    const cacheMajor = /^v(\d+)\./.exec(String(node))?.[1];
    if (cacheMajor !== runtimeMajor) {
      warnings.push(
        `dist/${name}: the V8 code cache was made by Node ${node} but the runtime is ${runtime}; it will not be used (slower cold starts, ~5 MB more at load). Build under Node ${runtimeMajor}, or LBSYNC_CODE_CACHE_NODE=<a node ${runtimeMajor} binary> npm run build`,
      );
    }
  }
  return warnings;
}
