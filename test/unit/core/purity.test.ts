// shared/core/ is the pure domain: nothing it loads at run time does I/O, touches an SDK or a node:* module, or
// lives outside core/ — except the error vocabulary (LbSyncError and its catalog: pure data, see docs/architecture.md,
// "Layout"), which is held to the same rule. Type-only imports are erased by the compiler (verbatimModuleSyntax),
// so they may name the input types (shared/schemas/) and the error types.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf, resolveLocal } from '../../support/imports';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CORE = join(ROOT, 'shared/core');
/**
 * Pure modules outside core/ that core may load: the error vocabulary, the field-error renderer it uses, and two
 * tables the target schema reads too (the ipSources, the LB API's defaults), so they live beside the schemas.
 */
const VOCABULARY = [
  'shared/errors/lbsync-error.ts',
  'shared/errors/field-errors.ts',
  'shared/schemas/ip-sources.ts',
  'shared/schemas/api-defaults.ts',
];
/** Globals that reach outside the process or the clock; core takes clocks and randomness as parameters. */
const IMPURE_GLOBALS = /\b(?:process\.|fetch\(|setTimeout\(|setInterval\(|console\.|require\(|Date\.now\(|new Date\(\)|globalThis\.)/;

/** What is wrong with one module's run-time imports and globals, under the core rule. */
function violations(file: string, source = readFileSync(file, 'utf8')): string[] {
  const problems: string[] = [];
  const where = relative(ROOT, file);
  for (const ref of importsOf(source).filter((r) => !r.typeOnly)) {
    const target = resolveLocal(file, ref.spec);
    if (!target) {
      problems.push(`${where}: loads ${ref.spec} (a package or node:* module): ${ref.line}`);
      continue;
    }
    const name = relative(ROOT, target);
    if (!name.startsWith('shared/core/') && !VOCABULARY.includes(name))
      problems.push(`${where}: loads ${name}, outside core/: ${ref.line}`);
  }
  // Comments and string contents are not code ("check the console" in a hint is not a console call).
  const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g, "''");
  const impure = IMPURE_GLOBALS.exec(code);
  if (impure) problems.push(`${where}: uses ${impure[0]}`);
  return problems;
}

const coreFiles = readdirSync(CORE)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(CORE, f));

describe('shared/core is pure', () => {
  it('has the modules the layout names', () => {
    const names = coreFiles.map((f) => relative(CORE, f));
    for (const name of ['model.ts', 'plan.ts', 'desired.ts', 'pool.ts', 'disposition.ts', 'backoff.ts', 'rollout.ts'])
      expect(names).toContain(name);
  });

  it.each(coreFiles.map((f) => [relative(ROOT, f), f]))(
    '%s loads only core and the error vocabulary, and no impure global',
    (_name, file) => {
      expect(violations(file)).toEqual([]);
    },
  );

  it.each(VOCABULARY)('%s, which core may load, is held to the same rule', (name) => {
    expect(violations(join(ROOT, name))).toEqual([]);
  });

  it('the check refuses a package, node:*, a module outside core and an impure global, and lets types through', () => {
    const fake = join(CORE, 'fake.ts');
    const refused = (line: string) => violations(fake, line);
    expect(refused("import { isIPv4 } from 'node:net';")).toHaveLength(1);
    expect(refused("import pino from 'pino';")).toHaveLength(1);
    expect(refused("import { wrapApiFailure } from '../adapters/api-failure';")).toHaveLength(1);
    expect(refused("import { kopsMessage } from '../errors/kops-messages';")).toHaveLength(1);
    expect(refused("import { type Target } from '../schemas/target';")).toHaveLength(1);
    expect(refused('export const now = () => Date.now();')).toHaveLength(1);
    expect(
      refused(
        "import type { Target } from '../schemas/target';\nimport { LbSyncError } from '../errors/lbsync-error';\nimport { normalisePool } from './pool';",
      ),
    ).toEqual([]);
    const refs = importsOf(
      [
        "import { isIPv4 } from 'node:net';",
        "import type { Target } from '../schemas/target';",
        "import { type Target } from '../schemas/target';",
        "export { x } from './pool';",
        "import pino from 'pino';",
        "const sdk = await import('@aws-sdk/client-sqs');",
      ].join('\n'),
    );
    expect(refs.map((r) => [r.spec, r.typeOnly])).toEqual([
      ['node:net', false],
      ['../schemas/target', true],
      ['../schemas/target', false], // an inline `type` keeps `import {} from ...` under verbatimModuleSyntax
      ['./pool', false],
      ['pino', false],
      ['@aws-sdk/client-sqs', false],
    ]);
    expect(IMPURE_GLOBALS.test('const t = Date.now();')).toBe(true);
    expect(IMPURE_GLOBALS.test('random: () => number = Math.random')).toBe(false);
  });
});
