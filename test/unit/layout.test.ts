// Each folder of shared/ sits on one floor: it imports only folders below it, never one that imports it back (a
// circle between folders means a file lives on the wrong floor). The folder graph is computed from the real imports
// of every module, type-only ones included: a type names another folder's concept as much as a value does.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FUNCTION_NAMES } from '../../functions/registry';
import { importsOf, resolveLocal } from '../support/imports';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SHARED = join(ROOT, 'shared');

/** from folder -> to folder -> the imports that make the edge ("shared/x/a.ts: import ... from '../y/b'"). */
type FolderGraph = Map<string, Map<string, string[]>>;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return /\.(ts|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The folder of shared/ a file is in (undefined outside shared/, e.g. package.json). */
function folderOf(file: string): string | undefined {
  const inside = relative(SHARED, file);
  if (inside.startsWith('..')) return undefined;
  return inside.split(sep)[0];
}

function addEdge(graph: FolderGraph, from: string, to: string, evidence: string): void {
  const edges = graph.get(from) ?? new Map<string, string[]>();
  graph.set(from, edges);
  edges.set(to, [...(edges.get(to) ?? []), evidence]);
}

/** The folder graph of the modules given (path -> source), every import counted, the folder's own left out. */
function folderGraph(modules: ReadonlyMap<string, string>): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const [file, source] of modules) {
    const from = folderOf(file);
    if (from === undefined) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    for (const ref of importsOf(source)) {
      const target = resolveLocal(file, ref.spec);
      const to = target && folderOf(target);
      if (to !== undefined && to !== from) addEdge(graph, from, to, `${relative(ROOT, file)}: ${ref.line}`);
    }
  }
  return graph;
}

/** The groups of folders that reach each other (Tarjan's strongly connected components of more than one folder). */
function circles(graph: FolderGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (folder: string) => {
    index.set(folder, next);
    low.set(folder, next);
    next += 1;
    stack.push(folder);
    for (const to of graph.get(folder)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(folder, Math.min(low.get(folder) as number, low.get(to) as number));
      } else if (stack.includes(to)) low.set(folder, Math.min(low.get(folder) as number, index.get(to) as number));
    }
    if (low.get(folder) !== index.get(folder)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      group.push(member);
    } while (member !== folder);
    if (group.length > 1) found.push(group.sort());
  };
  for (const folder of [...graph.keys()].sort()) if (!index.has(folder)) visit(folder);
  return found;
}

/** Each circle as the imports that close it: every edge between two of its folders, with its evidence. */
function describeCircles(graph: FolderGraph): string[] {
  return circles(graph).flatMap((group) =>
    group.flatMap((from) =>
      [...(graph.get(from) ?? new Map<string, string[]>())]
        .filter(([to]) => group.includes(to))
        .map(([to, evidence]) => `circle {${group.join(', ')}}: ${from} -> ${to} (${evidence.join('; ')})`),
    ),
  );
}

/** Each folder's floor: 0 for a folder that imports no other, else one above the highest it imports. */
function floors(graph: FolderGraph): Map<string, number> {
  const floor = new Map<string, number>();
  const of = (folder: string): number => {
    const known = floor.get(folder);
    if (known !== undefined) return known;
    const below = [...(graph.get(folder)?.keys() ?? [])].map(of);
    const value = below.length === 0 ? 0 : Math.max(...below) + 1;
    floor.set(folder, value);
    return value;
  };
  for (const folder of graph.keys()) of(folder);
  return floor;
}

const modules = new Map(sourcesUnder(SHARED).map((file) => [file, readFileSync(file, 'utf8')] as const));
const graph = folderGraph(modules);

describe('the folders of shared/ sit on floors', () => {
  it('every module of shared/ lives in a folder', () => {
    expect([...modules.keys()].filter((file) => dirname(file) === SHARED).map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('no folder imports one that imports it back, directly or around a circle (type-only imports included)', () => {
    expect(graph.size).toBeGreaterThanOrEqual(8);
    expect(describeCircles(graph)).toEqual([]);
  });

  it('so each folder has a floor: the error vocabulary at the bottom, the handlers at the top', () => {
    const floor = floors(graph);
    const order = [...floor].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).map(([folder, n]) => `${n} ${folder}`);
    expect(floor.get('errors'), order.join(', ')).toBe(0);
    for (const [low, high] of [
      ['errors', 'schemas'],
      ['schemas', 'core'],
      ['outbound', 'adapters'],
      ['adapters', 'platform'],
      ['platform', 'reconcile'],
      ['reconcile', 'handlers'],
    ] as const)
      expect(floor.get(low) as number, `${low} below ${high}: ${order.join(', ')}`).toBeLessThan(floor.get(high) as number);
  });

  it('the check finds a circle made of a type-only import, a dynamic import or one around three folders', () => {
    const at = (path: string) => join(SHARED, path);
    const withExtra = (extra: Record<string, string>) =>
      folderGraph(new Map([...modules, ...Object.entries(extra).map(([path, source]) => [at(path), source] as const)]));
    expect(circles(withExtra({ 'errors/extra.ts': "import type { Target } from '../schemas/target';" }))).toEqual([['errors', 'schemas']]);
    expect(circles(withExtra({ 'outbound/extra.ts': "const q = await import('../adapters/queue');" }))).toEqual([['adapters', 'outbound']]);
    const around = circles(withExtra({ 'core/extra.ts': "import { handleSweepRequest } from '../handlers/sweep-request';" }));
    expect(around).toHaveLength(1);
    expect(around[0]).toEqual(expect.arrayContaining(['core', 'handlers', 'platform', 'reconcile']));
    expect(describeCircles(withExtra({ 'errors/extra.ts': "export { x } from '../schemas/target';" }))).toContain(
      "circle {errors, schemas}: errors -> schemas (shared/errors/extra.ts: export { x } from '../schemas/target')",
    );
  });
});

/** Modules of shared/ that no handler imports: the build puts them into every function's bundle (scripts/build.mjs). */
const BUILD_SUBSTITUTES = [
  'shared/adapters/sdk-fetch-globals.ts',
  'shared/adapters/static-credentials-only.ts',
  'shared/platform/no-log-transports.cjs',
];

/** Every file a function's handler reaches through its imports (type-only ones included). */
function reachedFromFunctions(): Set<string> {
  const reached = new Set<string>();
  const visit = (file: string) => {
    if (reached.has(file) || !existsSync(file)) return;
    reached.add(file);
    if (!/\.(ts|mjs|cjs)$/.test(file)) return;
    for (const ref of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolveLocal(file, ref.spec);
      if (target) visit(target);
    }
  };
  for (const name of FUNCTION_NAMES) visit(join(ROOT, 'functions', name, 'handler.ts'));
  return reached;
}

describe('shared/ holds what the functions run', () => {
  it('every module of shared/ is loaded by a function; what only the CLI runs is under cli/', () => {
    const reached = reachedFromFunctions();
    const build = readFileSync(join(ROOT, 'scripts/build.mjs'), 'utf8');
    for (const path of BUILD_SUBSTITUTES) expect(build, path).toContain(path);
    const unreached = sourcesUnder(SHARED)
      .map((file) => relative(ROOT, file))
      .filter((path) => !reached.has(join(ROOT, path)) && !BUILD_SUBSTITUTES.includes(path));
    expect(unreached).toEqual([]);
  });
});
