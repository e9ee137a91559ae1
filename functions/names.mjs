// The functions as the folders of functions/ that hold a handler.ts, for the build and the serverless.yml checks
// (plain node, which cannot load functions/registry.ts). test/unit/functions/names.test.ts holds the folders and
// the registry equal, so adding a function is its folder and its line in the registry.
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FUNCTIONS_DIR = fileURLToPath(new URL('.', import.meta.url));

/** The functions' names, sorted. */
export const FUNCTION_NAMES = Object.freeze(
  readdirSync(FUNCTIONS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/handler.ts`, import.meta.url)))
    .map((entry) => entry.name)
    .sort(),
);
