// Zod's issues as field errors (shared/errors/field-errors.ts), each with its fix.
import type { z } from 'zod';
import type { FieldError } from '../errors/field-errors';
import { closest, didYouMean } from './suggest';

export function formatPath(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    // A cycle, a BigInt, or a value too deep for the stack (String() of a deep array overflows too).
    text = Array.isArray(value) ? 'an array' : typeof value === 'object' && value !== null ? 'an object' : typeof value;
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function fixFor(issue: z.core.$ZodIssue, allowed: string[] | undefined, known: readonly string[]): string {
  switch (issue.code) {
    case 'invalid_value': {
      const match = typeof issue.input === 'string' ? closest(issue.input, allowed ?? []) : undefined;
      return match === undefined
        ? `use one of: ${allowed?.join(', ')}`
        : `did you mean ${JSON.stringify(match)}? (one of: ${allowed?.join(', ')})`;
    }
    case 'unrecognized_keys':
      return unknownKeysFix(issue.keys, known);
    case 'invalid_type':
      return issue.input === undefined ? `add the required field (${issue.expected})` : `give a ${issue.expected}`;
    case 'too_small':
      return issue.origin === 'array' ? `give at least ${issue.minimum} item(s)` : `give a value of at least ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'array' ? `give at most ${issue.maximum} item(s)` : `give a value of at most ${issue.maximum}`;
    case 'invalid_format':
      return 'give a value in the stated format';
    case 'custom':
      // A refinement may carry its own fix (params.fix).
      return typeof issue.params?.fix === 'string' ? issue.params.fix : 'change the value as the message says';
    default:
      return 'change the value as the message says';
  }
}

/** `rename "clustr" to "cluster"` where a known key is close, `remove "x"` otherwise. */
function unknownKeysFix(keys: readonly string[], known: readonly string[]): string {
  return keys
    .map((key) => {
      const match = closest(key, known);
      return match === undefined
        ? `remove ${JSON.stringify(key)} (check the spelling against the configuration reference)`
        : `rename ${JSON.stringify(key)} to ${JSON.stringify(match)}`;
    })
    .join('; ');
}

function unknownKeysMessage(keys: readonly string[], known: readonly string[]): string {
  return keys.map((key) => `Unrecognized key: ${JSON.stringify(key)}${didYouMean(key, known)}`).join('; ');
}

type SchemaDef = {
  type: string;
  shape?: Record<string, unknown>;
  element?: unknown;
  innerType?: unknown;
  options?: unknown[];
  in?: unknown;
};

const defOf = (schema: unknown): SchemaDef | undefined => (schema as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def;

/** The keys an object schema accepts at `path` (every branch of a union; wrappers and arrays looked through). */
export function keysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  const def = defOf(schema);
  if (!def) return [];
  if (def.innerType !== undefined) return keysAt(def.innerType, path);
  if (def.type === 'pipe') return keysAt(def.in, path);
  if (def.type === 'union') return [...new Set((def.options ?? []).flatMap((option) => keysAt(option, path)))];
  const [head, ...rest] = path;
  if (head === undefined) return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
  if (def.type === 'array' && typeof head === 'number') return keysAt(def.element, rest);
  if (def.type === 'object' && typeof head === 'string') return keysAt(def.shape?.[head], rest);
  return [];
}

/** Whether the field at `path` may be left out: an optional field, or one with a default. */
function optionalAt(schema: unknown, path: readonly PropertyKey[]): boolean {
  const def = defOf(schema);
  if (!def) return false;
  const [head, ...rest] = path;
  if (head === undefined) return def.type === 'optional' || def.type === 'default';
  if (def.innerType !== undefined) return optionalAt(def.innerType, path);
  if (def.type === 'pipe') return optionalAt(def.in, path);
  if (def.type === 'union') return (def.options ?? []).some((option) => optionalAt(option, path));
  if (def.type === 'array' && typeof head === 'number') return optionalAt(def.element, rest);
  if (def.type === 'object' && typeof head === 'string') return optionalAt(def.shape?.[head], rest);
  return false;
}

/** The keys of each object form a union accepts at `path` (wrappers and arrays looked through); [] when it is no union. */
function unionForms(schema: unknown, path: readonly PropertyKey[]): string[][] {
  const def = defOf(schema);
  if (!def) return [];
  if (def.innerType !== undefined) return unionForms(def.innerType, path);
  if (def.type === 'pipe') return unionForms(def.in, path);
  const [head, ...rest] = path;
  if (head === undefined) return def.type === 'union' ? (def.options ?? []).map((option) => keysAt(option, [])) : [];
  if (def.type === 'array' && typeof head === 'number') return unionForms(def.element, rest);
  if (def.type === 'object' && typeof head === 'string') return unionForms(def.shape?.[head], rest);
  return [];
}

/** A value that fits none of a union's object forms: which forms there are, and the fix that says them. */
function unionFormsFix(forms: readonly string[][], missing: boolean): { message: string; fix: string } | undefined {
  if (forms.length === 0 || forms.some((keys) => keys.length === 0)) return undefined;
  const shown = forms.map((keys) => `{${keys.map((k) => `"${k}": ...`).join(', ')}}`);
  const single = forms.every((keys) => keys.length === 1);
  return {
    message: missing ? `is missing: it takes one of the forms ${shown.join(' or ')}` : `fits none of its forms: ${shown.join(' or ')}`,
    fix: single
      ? `give exactly one of ${forms.map(([k]) => `"${k}"`).join(' or ')} (see the configuration reference)`
      : `give one of the forms ${shown.join(' or ')}`,
  };
}

/** A union of objects where every branch only refused unknown keys: those keys, once each (else undefined). */
function unknownKeysOfUnion(issue: z.core.$ZodIssue): string[] | undefined {
  if (issue.code !== 'invalid_union' || !('errors' in issue) || issue.errors.length === 0) return undefined;
  const perBranch = issue.errors.map((branch) =>
    branch.flatMap((i) => (i.code === 'unrecognized_keys' && i.path.length === 0 ? i.keys : [])),
  );
  const inEvery = (perBranch[0] ?? []).filter((key) => perBranch.every((keys) => keys.includes(key)));
  return inEvery.length > 0 ? inEvery : undefined;
}

/**
 * Zod issues as field errors, each with its fix. Given the schema, an unknown key (`clustr`) names the known key
 * it is likely a typo of (`cluster`), and a value outside an enum the allowed value it is closest to.
 */
export function toFieldErrors(error: z.ZodError, root = '', schema?: unknown): FieldError[] {
  return error.issues.map((issue) => {
    const allowed = issue.code === 'invalid_value' ? issue.values.map((v) => String(v)) : undefined;
    const known = issue.code === 'unrecognized_keys' || issue.code === 'invalid_union' ? keysAt(schema, issue.path) : [];
    const unionKeys = unknownKeysOfUnion(issue);
    const received =
      'input' in issue && issue.input !== undefined && issue.code !== 'unrecognized_keys' ? describeValue(issue.input) : undefined;
    let message = issue.code === 'invalid_type' && issue.input === undefined ? `required ${issue.expected} is missing` : issue.message;
    if (issue.code === 'unrecognized_keys') message = unknownKeysMessage(issue.keys, known);
    if (unionKeys) message = unknownKeysMessage(unionKeys, known);
    const forms =
      issue.code === 'invalid_union' && !unionKeys
        ? unionFormsFix(unionForms(schema, issue.path), !('input' in issue) || issue.input === undefined)
        : undefined;
    if (forms) message = forms.message;
    return {
      path: formatPath(issue.path, root),
      message,
      ...(received !== undefined && !unionKeys && { received }),
      ...(allowed && { allowed }),
      fix: unionKeys
        ? `${unknownKeysFix(unionKeys, known)} (give one of: ${known.join(', ')})`
        : 'input' in issue && issue.input === null && optionalAt(schema, issue.path)
          ? `${fixFor(issue, allowed, known)}, or leave the field out: null is no value here (a field left out takes its default, or is not compared)`
          : (forms?.fix ?? fixFor(issue, allowed, known)),
    };
  });
}
