// The targets shipped in the deployment archive: `npm run build -- --targets FILE` checks FILE and writes it to
// dist/targets.json, beside the functions' folders. A deployed function finds it from its own bundle's folder,
// never from the working directory (the platform's is not documented).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The file the build writes, in the archive and in dist/. */
export const SHIPPED_TARGETS_FILE = 'dist/targets.json';

/**
 * The running function bundle's folder (dist/<name>/): the build defines it as the bundle's __dirname (esbuild
 * `define`, scripts/build.mjs). Undeclared anywhere else: the sources, the CLI and the tests ship no targets.
 */
declare const FUNCTION_BUNDLE_DIR: string | undefined;

/** The shipped targets file when this is a function bundle that has one, else undefined. */
export function shippedTargetsPath(): string | undefined {
  if (typeof FUNCTION_BUNDLE_DIR !== 'string') return undefined;
  const path = join(FUNCTION_BUNDLE_DIR, '..', 'targets.json');
  return existsSync(path) ? path : undefined;
}
