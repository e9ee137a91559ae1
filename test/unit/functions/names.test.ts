// The one list of functions: derived from the folders of functions/, and the list every consumer takes.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FUNCTIONS as COCKPIT_FUNCTIONS } from '../../../cockpit/settings';
import { FUNCTION_NAMES, type FunctionName } from '../../../functions/names.mjs';
import { loadHandlers } from '../../../local/serve-functions';
import { portsFrom } from '../../../local/start-options';

const scratch = mkdtempSync(join(tmpdir(), 'lbsync-function-names-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the list of functions', () => {
  it('is the folders of functions/ that hold a handler.ts, sorted, whatever they are', async () => {
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
    const copy = (await import(pathToFileURL(join(scratch, 'names.mjs')).href)) as { FUNCTION_NAMES: readonly string[] };
    expect(copy.FUNCTION_NAMES).toEqual(['alpha', 'zeta']);
  });

  it("matches the FunctionName type (functions/names.d.mts), so a folder added or removed fails the typecheck's users here", () => {
    const everyName: Record<FunctionName, true> = { inject: true, reconcile: true, sweep: true, watch: true };
    expect(Object.keys(everyName).sort()).toEqual([...FUNCTION_NAMES]);
  });

  it('is what the local stack serves, on the ports --port-base gives, and what Cockpit selects', async () => {
    const handlers = await loadHandlers('source');
    expect(Object.keys(handlers).sort()).toEqual([...FUNCTION_NAMES]);
    for (const name of FUNCTION_NAMES) expect(typeof handlers[name], name).toBe('function');
    const ports = portsFrom(8090).functions;
    expect(Object.keys(ports)).toEqual([...FUNCTION_NAMES]);
    expect(Object.values(ports)).toEqual(FUNCTION_NAMES.map((_, i) => 8092 + i));
    // Cockpit's queries are bundled into the CLI, which cannot read functions/ at run time: its copy is held to this one.
    expect([...COCKPIT_FUNCTIONS].sort()).toEqual([...FUNCTION_NAMES]);
  });

  it('is what the serverless.yml checks and the build take', async () => {
    const checker = (await import(new URL('../../../scripts/serverless-check/env-catalog.mjs', import.meta.url).href)) as {
      FUNCTIONS: readonly string[];
    };
    expect(checker.FUNCTIONS).toBe(FUNCTION_NAMES);
  });
});
