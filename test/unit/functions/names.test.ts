// The one list of functions (functions/registry.ts), the folders of functions/ it must match, and the consumers
// that take it.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FUNCTION, FUNCTION_NAMES, FUNCTIONS } from '../../../functions/registry';
import { loadHandlers } from '../../../local/serve-functions';
import { portsFrom } from '../../../local/start-options';

const scratch = mkdtempSync(join(tmpdir(), 'lbsync-function-names-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** functions/names.mjs, the folders' list the plain-node build scripts read. */
const folders = async (url: string) => ((await import(url)) as { FUNCTION_NAMES: readonly string[] }).FUNCTION_NAMES;

describe('the list of functions', () => {
  it('names.mjs reads the folders of functions/ that hold a handler.ts, sorted, whatever they are', async () => {
    // The module, copied beside folders of its own: a list written by hand would not follow them.
    copyFileSync(new URL('../../../functions/names.mjs', import.meta.url), join(scratch, 'names.mjs'));
    for (const [folder, handler] of [
      ['zeta', true],
      ['alpha', true],
      ['no-handler', false],
    ] as const) {
      mkdirSync(join(scratch, folder));
      if (handler) writeFileSync(join(scratch, folder, 'handler.ts'), 'export const handle = () => undefined;\n');
    }
    writeFileSync(join(scratch, 'handler.ts'), '// a file, not a folder\n');
    expect(await folders(pathToFileURL(join(scratch, 'names.mjs')).href)).toEqual(['alpha', 'zeta']);
  });

  it('the registry names every folder of functions/ and no other, so a folder added or removed fails here', async () => {
    expect(FUNCTION_NAMES).toEqual(await folders(new URL('../../../functions/names.mjs', import.meta.url).href));
    expect([...FUNCTIONS].sort()).toEqual(FUNCTION_NAMES);
    expect(Object.keys(FUNCTION)).toEqual(FUNCTIONS);
  });

  it('is what the local stack serves, on the ports --port-base gives', async () => {
    const handlers = await loadHandlers('source');
    expect(Object.keys(handlers).sort()).toEqual(FUNCTION_NAMES);
    for (const name of FUNCTION_NAMES) expect(typeof handlers[name], name).toBe('function');
    const ports = portsFrom(8090).functions;
    expect(Object.keys(ports)).toEqual(FUNCTION_NAMES);
    expect(Object.values(ports)).toEqual(FUNCTION_NAMES.map((_, i) => 8092 + i));
  });

  it('is what the serverless.yml checks and the build take', async () => {
    const checker = (await import(new URL('../../../scripts/serverless-check/env-catalog.mjs', import.meta.url).href)) as {
      FUNCTIONS: readonly string[];
    };
    expect(checker.FUNCTIONS).toEqual(FUNCTION_NAMES);
  });
});
