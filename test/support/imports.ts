// The modules a source file names, read from its text: what the purity and layout tests judge.
import { dirname, resolve } from 'node:path';

export interface ImportRef {
  spec: string;
  typeOnly: boolean;
  line: string;
}

/** Every module a file names: static imports and re-exports (type-only or not), dynamic imports. */
export function importsOf(source: string): ImportRef[] {
  const refs: ImportRef[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?([^;'"]*?)\s*from\s*['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm;
  for (const match of source.matchAll(statement)) {
    const spec = match[4] ?? match[5];
    if (spec) refs.push({ spec, typeOnly: match[2] !== undefined, line: match[0].trim() });
  }
  for (const match of source.matchAll(/\bimport\(\s*['"`]([^'"`]+)['"`]\s*\)/g))
    refs.push({ spec: match[1] as string, typeOnly: false, line: match[0] });
  return refs;
}

/** The file a relative specifier names (a .ts module when it has no extension); undefined for a package or node:*. */
export function resolveLocal(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  return /\.(ts|json|cjs|mjs)$/.test(base) ? base : `${base}.ts`;
}
