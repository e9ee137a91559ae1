// Reads a LogQL expression with Grafana's own grammar (@grafana/lezer-logql, the parser of Grafana's Loki query
// editor) and tells what it uses: the stream selector's matchers, every key a stage reads after the parser (label
// filters, unwrap, by/on, the fields of line_format and label_format templates), the labels it makes itself, and
// the values it compares keys with. `npm run cockpit` and the tests hold every query to the log schema with it.
import { parser } from '@grafana/lezer-logql';
import type { z } from 'zod';
import { ERROR_CATALOG } from '../shared/errors/lbsync-error';
import { LOG_LINES, loggedKeys } from '../shared/platform/log-schema';
import { FUNCTIONS } from '../functions/registry';
import { COCKPIT_LABELS, FUNCTION_PLACEHOLDER, STREAM_LABELS } from './settings';

export interface Comparison {
  key: string;
  /** =, !=, =~, !~ */
  op: string;
  value: string;
}

export interface QueryFacts {
  /** Offsets of the grammar's error nodes: none in a query Grafana and Loki accept. */
  errorsAt: number[];
  /** Each stream selector's matchers. */
  selectors: Comparison[][];
  keysUsed: string[];
  keysDefined: string[];
  comparisons: Comparison[];
}

/** Grafana's dashboard variables, replaced as Grafana does before a query reaches Loki (a step, the target regex). */
export function interpolate(expr: string): string {
  return expr.replaceAll('$__interval', '1m').replaceAll('$__range', '6h').replaceAll('$target', '.*');
}

/** Loki's own labels: the error a stage left (filtered out after unwrap). */
const LOKI_LABELS = ['__error__', '__error_details__'];
const OPERATORS: Record<string, string> = { Eq: '=', Neq: '!=', Re: '=~', Nre: '!~' };

function unquote(text: string): string {
  if (text.startsWith('`')) return text.slice(1, -1);
  return JSON.parse(text) as string;
}

/** `.target` and `.attempt` in `{{.target}} #{{ .attempt }}`. */
function templateFields(template: string): string[] {
  return [...template.matchAll(/\{\{(.*?)\}\}/g)].flatMap((m) =>
    [...(m[1] as string).matchAll(/(?<![\w$])\.([A-Za-z_]\w*)/g)].map((f) => f[1] as string),
  );
}

export function analyse(expr: string): QueryFacts {
  const facts: QueryFacts = { errorsAt: [], selectors: [], keysUsed: [], keysDefined: [], comparisons: [] };
  const text = (from: number, to: number) => expr.slice(from, to);
  const cursor = parser.parse(expr).cursor();
  const ancestors: string[] = [];
  /** The current node's children, by name and text (the cursor comes back where it was). */
  const children = () => {
    const parts: { name: string; text: string }[] = [];
    if (cursor.firstChild()) {
      do parts.push({ name: cursor.name, text: text(cursor.from, cursor.to) });
      while (cursor.nextSibling());
      cursor.parent();
    }
    return parts;
  };
  const visit = (): void => {
    const { name, from, to } = cursor;
    if (cursor.type.isError) facts.errorsAt.push(from);
    if (name === 'Selector') facts.selectors.push([]);
    if (name === 'Matcher') {
      const [key, op, value] = children();
      if (key?.name === 'Identifier' && op && value?.name === 'String') {
        const matcher = { key: key.text, op: OPERATORS[op.name] ?? op.name, value: unquote(value.text) };
        if (ancestors.includes('Selector')) facts.selectors.at(-1)?.push(matcher);
        else {
          facts.keysUsed.push(matcher.key);
          facts.comparisons.push(matcher);
        }
      }
      return;
    }
    if (name === 'LabelFormatMatcher') {
      const [made, , source] = children();
      if (made) facts.keysDefined.push(made.text);
      if (source?.name === 'Identifier') facts.keysUsed.push(source.text);
      if (source?.name === 'String') facts.keysUsed.push(...templateFields(unquote(source.text)));
      return;
    }
    if (name === 'String' && ancestors.at(-1) === 'LineFormatExpr') facts.keysUsed.push(...templateFields(unquote(text(from, to))));
    if ((name === 'Identifier' || name === 'LabelName') && !ancestors.includes('Selector')) facts.keysUsed.push(text(from, to));
    if (cursor.firstChild()) {
      ancestors.push(name);
      do visit();
      while (cursor.nextSibling());
      ancestors.pop();
      cursor.parent();
    }
  };
  visit();
  return facts;
}

type Shape = z.ZodType & { def?: { type?: string; innerType?: Shape; entries?: Record<string, string>; values?: unknown[] } };

/** The values a schema type takes, when it is an enum or literal (through optional); undefined: any value. */
function enumValues(schema: Shape): string[] | undefined {
  const def = schema.def;
  if (def?.type === 'optional' && def.innerType) return enumValues(def.innerType);
  if (def?.type === 'enum' && def.entries) return Object.values(def.entries);
  if (def?.type === 'literal' && def.values) return def.values.map(String);
  return undefined;
}

/** The values a query may compare a key with: the schema's enum (over every line that has the key), error codes for `code`. */
export function allowedValues(key: string): string[] | undefined {
  if (key === 'code') return Object.keys(ERROR_CATALOG);
  const shapes = Object.values(LOG_LINES)
    .map((line) => (line.shape as Record<string, Shape>)[key])
    .filter((s): s is Shape => s !== undefined);
  if (shapes.length === 0) return undefined;
  const values = shapes.map(enumValues);
  return values.every((v) => v !== undefined) ? [...new Set(values.flat() as string[])] : undefined;
}

/** A compared value, as the list of literal values it stands for (an alternation of words), or undefined for a real regex. */
function literalValues({ op, value }: Comparison): string[] | undefined {
  if (op === '=' || op === '!=') return value === '' ? [] : [value];
  return /^[\w-]+(\|[\w-]+)*$/.test(value) ? value.split('|') : undefined;
}

/** A stream selector is STREAM_LABELS' labels, each with its value (a function's name where the placeholder is). */
function selectorProblems(matchers: Comparison[]): string[] {
  const labels = matchers.map((m) => m.key).sort();
  if (JSON.stringify(labels) !== JSON.stringify(Object.keys(STREAM_LABELS).sort()))
    return [`stream selector labels [${labels.join(', ')}] are not STREAM_LABELS' [${Object.keys(STREAM_LABELS).join(', ')}]`];
  return matchers.flatMap(({ key, op, value }) => {
    const wanted = STREAM_LABELS[key] as string;
    const names = op === '=~' ? value.split('|') : [value];
    const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = new RegExp(
      `^${wanted
        .split(FUNCTION_PLACEHOLDER)
        .map(literal)
        .join(`(${FUNCTIONS.join('|')})`)}$`,
    );
    const fits = (op === '=' || (op === '=~' && wanted.includes(FUNCTION_PLACEHOLDER))) && names.every((n) => pattern.test(n));
    return fits ? [] : [`stream selector ${key}${op}"${value}" is not STREAM_LABELS' ${key}="${wanted}"`];
  });
}

/**
 * What is wrong with a query against the log schema and the settings: a grammar error; a stream selector other than
 * the configured labels; a key no line carries (nor Cockpit, nor Loki, nor the query itself); a value no line has.
 */
export function queryProblems(expr: string): string[] {
  const facts = analyse(interpolate(expr));
  const problems: string[] = facts.errorsAt.map((at) => `grammar error at ${at}: ${interpolate(expr).slice(at, at + 30)}`);
  const known = new Set([...loggedKeys(), ...COCKPIT_LABELS, ...LOKI_LABELS, ...facts.keysDefined]);
  for (const key of new Set(facts.keysUsed)) if (!known.has(key)) problems.push(`"${key}" is no key of the log schema nor a Cockpit label`);
  for (const matchers of facts.selectors) problems.push(...selectorProblems(matchers));
  for (const comparison of facts.comparisons) {
    const allowed = allowedValues(comparison.key);
    const values = literalValues(comparison);
    if (!allowed || !values) continue;
    for (const value of values.filter((v) => !allowed.includes(v))) problems.push(`${comparison.key}: no line has the value "${value}"`);
  }
  return problems;
}

/**
 * What is wrong with a metrics panel's PromQL: no grammar of PromQL ships here, so it is held to a narrow shape —
 * balanced brackets, every metric one Scaleway documents for Functions, selecting the four functions by
 * resource_name (and, for the status, status="error"), grouped by resource_name only.
 */
export function metricQueryProblems(expr: string, documented: readonly string[]): string[] {
  const problems: string[] = [];
  let depth = 0;
  for (const ch of expr) {
    depth += ch === '(' || ch === '{' ? 1 : ch === ')' || ch === '}' ? -1 : 0;
    if (depth < 0) break;
  }
  if (depth !== 0) problems.push('unbalanced brackets');
  for (const m of expr.matchAll(/([a-z_]+)\{([^}]*)\}/g)) {
    const [, name = '', matchers = ''] = m;
    if (!documented.includes(name)) problems.push(`"${name}" is no metric Scaleway documents for Functions`);
    for (const matcher of matchers.split(',').map((x) => x.trim())) {
      const ok =
        matcher === `resource_name=~"${FUNCTIONS.join('|')}"` || (name === 'serverless_function_status' && matcher === 'status="error"');
      if (!ok) problems.push(`${name}: matcher ${matcher} selects something else than the four functions`);
    }
  }
  for (const m of expr.matchAll(/by \(([^)]*)\)/g)) if (m[1] !== 'resource_name') problems.push(`grouped by ${m[1]}, not resource_name`);
  if (![...expr.matchAll(/([a-z_]+)\{/g)].length) problems.push('no metric selected');
  return problems;
}
