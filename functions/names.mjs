// The functions: one per folder of functions/ that holds a handler.ts. The build, the serverless.yml checks, the
// local stack and the bench all take this list, so adding a function is adding its folder.
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
