// Every error code the code can emit has an entry in docs/troubleshooting.md. The codes are found in the code
// itself, not in a list: the TypeScript compiler reads every source file that ships or runs (the functions, the
// CLI, the local stack, Cockpit's queries, the scripts), and every literal in a code's position is taken — the code of
// `new CliError(...)`, `new LbSyncError(...)`, `validationError(...)`, a `code:` or `error:` field given a string
// (answers, log lines, dead letters), and the `error [<code>]` a message spells out. A code built at run time (a
// template) is refused: nobody could document it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { COMMAND_ERROR_CATALOG, ERROR_CATALOG, WARNING_CATALOG } from '../../../shared/errors/lbsync-error';

const ROOT = new URL('../../../', import.meta.url).pathname;
const FOLDERS = ['functions', 'shared', 'cli', 'local', 'cockpit', 'scripts', 'bin'];
const ERROR_CLASSES = new Set(['CliError', 'LbSyncError']);
const CODE_FIRST_CALLS = new Set(['validationError']);
const CODE_FIELDS = new Set(['code', 'error']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts') && !name.endsWith('.d.mts') ? [path] : [];
  });
}

interface Found {
  code: string;
  at: string;
}

/** The codes a file emits, and the places where a code is built at run time (a template literal). */
function codesIn(path: string): { found: Found[]; built: string[] } {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Found[] = [];
  const built: string[] = [];
  const at = (node: ts.Node) => `${relative(ROOT, path)}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
  const take = (node: ts.Expression) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push({ code: node.text, at: at(node) });
    else if (ts.isTemplateExpression(node)) built.push(at(node));
  };
  const insideZodIssue = (node: ts.Node) => {
    for (let n: ts.Node | undefined = node; n; n = n.parent)
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'addIssue') return true;
    return false;
  };
  const visit = (node: ts.Node) => {
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && ERROR_CLASSES.has(node.expression.text) && node.arguments?.[0])
      take(node.arguments[0]);
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && CODE_FIRST_CALLS.has(node.expression.text) && node.arguments[0])
      take(node.arguments[0]);
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && CODE_FIELDS.has(node.name.text) && !insideZodIssue(node)) {
      if (ts.isStringLiteral(node.initializer) || ts.isTemplateExpression(node.initializer)) take(node.initializer);
    }
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)) &&
      /error \[[a-z0-9_]+\]/.test(node.text)
    )
      for (const m of node.text.matchAll(/error \[([a-z0-9_]+)\]/g)) found.push({ code: m[1] as string, at: at(node) });
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { found, built };
}

const scanned = FOLDERS.flatMap((folder) => sources(join(ROOT, folder))).map(codesIn);
const emitted = scanned.flatMap((s) => s.found);
const documented = new Set(
  [...readFileSync(join(ROOT, 'docs/troubleshooting.md'), 'utf8').matchAll(/^### `([a-z0-9_]+)`$/gm)].map((m) => m[1] as string),
);
const catalogued = new Set([...Object.keys(ERROR_CATALOG), ...Object.keys(COMMAND_ERROR_CATALOG), ...Object.keys(WARNING_CATALOG)]);

describe('every error code the code can emit', () => {
  it('is found by reading the sources (the scan sees the codes it must)', () => {
    const codes = new Set(emitted.map((f) => f.code));
    for (const code of ['usage', 'unexpected', 'not_found', 'invalid_seed', 'ambiguous_id', 'forbidden', 'unauthorized', 'record_failed'])
      expect(codes, code).toContain(code);
    for (const code of ['not_configured', 'invalid_credentials', 'invalid_config', 'queue_unavailable', 'method_not_allowed'])
      expect(codes, code).toContain(code);
    expect(scanned.length).toBeGreaterThan(100);
  });

  it('is a literal: no code is built at run time', () => {
    expect(scanned.flatMap((s) => s.built)).toEqual([]);
  });

  it('has its entry in docs/troubleshooting.md (and in a catalog, which the page is made from)', () => {
    const missing = emitted.filter((f) => !documented.has(f.code) || !catalogued.has(f.code)).map((f) => `${f.code} (${f.at})`);
    expect(missing).toEqual([]);
  });

  it('every catalogued code has its entry, and the page has no entry for a code nothing knows', () => {
    expect([...catalogued].filter((code) => !documented.has(code))).toEqual([]);
    expect([...documented].filter((code) => !catalogued.has(code))).toEqual([]);
  });
});
