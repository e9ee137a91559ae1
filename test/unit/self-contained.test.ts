/**
 * The repository carries its own evidence: no file it tracks refers to a path outside it. Checked on a copy of
 * the tracked files in an empty temporary folder with no siblings, as a fresh clone placed anywhere would be
 * (CI also runs the tests that read files from such a copy: .ci/run).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'dist-cli', 'coverage', '.lbsync-local', '.serverless']);
// Written in two parts so this file does not match itself.
const FORBIDDEN = [['/wo', 'rk/'].join(''), ['../sha', 'red/fixtures'].join(''), ['../sha', 'red/DESIGN'].join('')];
/** Relative paths in quotes, backquotes or Markdown links: `'../x'`, `"./y"`, `](../z)`. */
const RELATIVE_REFERENCE = /(?:['"`(])(\.{1,2}\/[^'"`()\s]*)/g;

/** The files a clone would hold: `git ls-files`, or the tree without build output when git is not there. */
function trackedFiles(): string[] {
  try {
    return execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  } catch {
    const walk = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
        const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : walk(path);
        return [path];
      });
    return walk('');
  }
}

function isText(buffer: Buffer): boolean {
  return !buffer.subarray(0, 8000).includes(0);
}

let copy: string;
let files: string[];

beforeAll(() => {
  // <tmp>/<random>/repo: the repository alone in its parent, no sibling folders to lean on.
  copy = join(mkdtempSync(join(tmpdir(), 'lbsync-clone-')), 'repo');
  files = trackedFiles().filter((file) => statSync(join(root, file), { throwIfNoEntry: false })?.isFile());
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    copyFileSync(join(root, file), join(copy, file));
  }
});
afterAll(() => {
  rmSync(dirname(copy), { recursive: true, force: true });
});

describe('the repository is self-contained', () => {
  it('has the recordings the tests read, with their provenance', () => {
    const fixtures = files.filter((file) => file.startsWith('test/fixtures/scaleway-api/'));
    expect(fixtures.filter((file) => file.endsWith('.cassette.yaml'))).toHaveLength(33);
    const readme = readFileSync(join(copy, 'test/fixtures/scaleway-api/README.md'), 'utf8');
    for (const fact of ['scaleway/terraform-provider-scaleway', 'b2d45ed4b', 'MPL-2.0', 'unmodified']) expect(readme).toContain(fact);
    for (const fact of ['scaleway/scaleway-cli', 'c2d470d86', 'Apache-2.0', 'LICENSE-Apache-2.0.txt']) expect(readme).toContain(fact);
    for (const fact of ['scaleway/scaleway-sdk-go', '2c5cd81b']) expect(readme).toContain(fact);
    expect(fixtures).toContain('test/fixtures/scaleway-api/LICENSE-Apache-2.0.txt');
  });

  it('no tracked file names a path outside the repository', () => {
    const outside: string[] = [];
    let references = 0;
    for (const file of files) {
      const buffer = readFileSync(join(copy, file));
      if (!isText(buffer)) continue;
      const text = buffer.toString('utf8');
      for (const needle of FORBIDDEN) if (text.includes(needle)) outside.push(`${file}: ${needle}`);
      for (const match of text.matchAll(RELATIVE_REFERENCE)) {
        references += 1;
        const target = resolve(dirname(join(copy, file)), match[1] ?? '');
        const inside = relative(copy, target);
        if (inside.startsWith('..') || inside.startsWith(sep)) outside.push(`${file}: ${match[1]}`);
      }
    }
    expect(outside).toEqual([]);
    expect(references).toBeGreaterThan(200); // the imports and links were really looked at
  });

  it('cites no document it does not hold: what the code relies on is in docs/, not in a design note outside', () => {
    // Written in parts so this file does not match itself.
    const citation = new RegExp(['\\bDESIGN', '(?:\\.md)?', "(?: ?§|'s\\b)"].join(''));
    expect(citation.test(['see DESIGN', ' §4'].join(''))).toBe(true);
    expect(citation.test(['DESIGN', "'s outcomes"].join(''))).toBe(true);
    const citing = files.filter((file) => {
      const buffer = readFileSync(join(copy, file));
      return isText(buffer) && citation.test(buffer.toString('utf8'));
    });
    expect(citing).toEqual([]);
  });

  it('the check would catch one (a reference to a sibling folder fails it)', () => {
    const probe = 'test/unit/probe.ts';
    const line = `import x from '${['..', '..', '..', 'shared', 'fixtures', 'x'].join('/')}';`;
    const escapes = [...line.matchAll(RELATIVE_REFERENCE)].map((m) => relative(copy, resolve(dirname(join(copy, probe)), m[1] ?? '')));
    expect(escapes).toEqual([`..${sep}shared${sep}fixtures${sep}x`]);
  });
});
