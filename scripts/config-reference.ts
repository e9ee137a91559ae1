// Renders the configuration reference from the zod schemas and the environment catalogue, so the docs cannot drift
// from the code. `npm run docs` (scripts/docs.ts) writes each generated section into every doc (README.md,
// docs/*.md) that holds its markers; a test fails when one is stale.
import { readdirSync } from 'node:fs';
import * as z from 'zod';
import { runtimeSchema } from '../shared/platform/config';
import { deployedName, ENVIRONMENT_CATALOGUE, type EnvironmentVariable, NAMED_BY_TARGETS } from '../shared/platform/environment-catalogue';
import { eventSchema } from '../shared/schemas/event';
import { fullTargetSchema, kopsTargetSchema } from '../shared/schemas/target';

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
}

interface Row {
  path: string;
  type: string;
  required: boolean;
  default?: unknown;
  description: string;
}

function typeOf(s: JsonSchema): string {
  if (s.enum) return s.enum.map((v) => `\`${String(v)}\``).join(' \\| ');
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  const base = Array.isArray(s.type) ? s.type.join('\\|') : (s.type ?? 'object');
  const range = s.minimum !== undefined || s.maximum !== undefined ? ` ${s.minimum ?? ''}..${s.maximum ?? ''}` : '';
  const items = s.minItems !== undefined || s.maxItems !== undefined ? ` (${s.minItems ?? 0}..${s.maxItems ?? '∞'} items)` : '';
  const format = s.format === 'date-time' ? ' (ISO 8601)' : '';
  return `${base}${range}${items}${format}`;
}

const isScalar = (s: JsonSchema) => !s.properties && !s.items && !s.anyOf;

function walk(schema: JsonSchema, path: string, required: boolean, rows: Row[]): void {
  // A union of plain values ("auto" | boolean) is one field: one row, its alternatives in the type column.
  if (schema.anyOf && path && schema.anyOf.every(isScalar)) {
    rows.push({
      path,
      type: schema.anyOf.map(typeOf).join(' \\| '),
      required,
      default: schema.default,
      description: schema.description ?? '',
    });
    return;
  }
  if (schema.anyOf) {
    for (const option of schema.anyOf) walk({ description: schema.description, ...option }, path, required, rows);
    return;
  }
  if (path) {
    rows.push({
      path,
      type: typeOf(schema.type === 'array' && schema.items ? { ...schema, type: `array of ${typeOf(schema.items)}` } : schema),
      required,
      default: schema.default,
      description: schema.description ?? '',
    });
  }
  const object = schema.type === 'array' ? schema.items : schema;
  const suffix = schema.type === 'array' ? '[]' : '';
  // An array of a union of objects (loadBalancers: {name, zone} or {id, zone}): the fields of each form, once each.
  const forms = object?.anyOf && !object.anyOf.every(isScalar) ? object.anyOf : [object];
  for (const form of forms) {
    for (const [key, child] of Object.entries(form?.properties ?? {})) {
      walk(child, `${path}${suffix}${path ? '.' : ''}${key}`, (form?.required ?? []).includes(key) && child.default === undefined, rows);
    }
  }
}

function table(schema: z.ZodType): string {
  const rows: Row[] = [];
  walk(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema, '', true, rows);
  const seen = new Set<string>();
  const lines = ['| field | type / values | required | default | meaning |', '|---|---|---|---|---|'];
  for (const row of rows) {
    const key = `${row.path}|${row.type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const def = row.default === undefined ? '' : `\`${JSON.stringify(row.default)}\``;
    lines.push(`| \`${row.path}\` | ${row.type} | ${row.required ? 'yes' : ''} | ${def} | ${row.description} |`);
  }
  return lines.join('\n');
}

export function renderConfigReference(): string {
  return [
    '#### Target (full form)',
    table(fullTargetSchema),
    '',
    '#### Target (kOps shorthand)',
    table(kopsTargetSchema),
    '',
    '#### Event (queue message body, version 1)',
    table(eventSchema),
  ].join('\n');
}

/** What reads a variable: the functions (all, or by name), the CLI, or node itself. */
function readers(variable: EnvironmentVariable): string {
  if (variable.readByNode) return 'node, in every function';
  const functions = variable.functions === 'all' ? ['every function'] : variable.functions;
  return [...functions, ...(variable.cli ? ['CLI'] : [])].join(', ');
}

function environmentRow(name: string, variable: EnvironmentVariable, values: Record<string, JsonSchema>, label?: string): string {
  const deployed = deployedName(name);
  const cells = [
    label ?? `\`${name}\`${deployed === name ? '' : ` (\`${deployed}\` in a function)`}`,
    readers(variable),
    variable.required ? 'yes' : '',
    variable.secret ? 'yes' : variable.secretAllowed ? 'may be' : '',
    variable.default === undefined ? '' : `\`${variable.default}\``,
    values[name] ? typeOf(values[name]) : '',
    [
      variable.meaning,
      ...(variable.url ? ['credentials in it (user:password@) are removed, never sent nor shown'] : []),
      ...(variable.notDeployed ? [`never on a deployed function: it ${variable.notDeployed}`] : []),
    ].join('; '),
  ];
  return `| ${cells.join(' | ')} |`;
}

/** Every variable of the environment catalogue, with the values the runtime schema accepts. */
export function renderEnvironmentReference(): string {
  const values = (z.toJSONSchema(runtimeSchema, { io: 'output', unrepresentable: 'any' }) as JsonSchema).properties ?? {};
  return [
    '| variable | read by | required | secret | default | values | meaning |',
    '|---|---|---|---|---|---|---|',
    ...ENVIRONMENT_CATALOGUE.map(([name, variable]) => environmentRow(name, variable, values)),
    // Their names are the deployer's: the row names the target fields that give them.
    environmentRow(
      NAMED_BY_TARGETS.name,
      NAMED_BY_TARGETS,
      values,
      `the variables a target's \`${NAMED_BY_TARGETS.name.split(', ').join('` and `')}\` name`,
    ),
  ].join('\n');
}

/** The generated sections, by the name their markers carry. */
export const SECTIONS: Record<string, () => string> = {
  'config-reference': renderConfigReference,
  'environment-reference': renderEnvironmentReference,
};

export const markers = (section: string) => ({
  start: `<!-- ${section}:start (generated by \`npm run docs\`; do not edit) -->`,
  end: `<!-- ${section}:end -->`,
});

/** The sections whose markers the text holds. */
export function sectionsIn(text: string): string[] {
  return Object.keys(SECTIONS).filter((section) => text.includes(markers(section).start));
}

/** The text with every generated section it holds brought up to date. */
export function withReference(text: string): string {
  let result = text;
  for (const section of sectionsIn(text)) {
    const { start, end } = markers(section);
    const from = result.indexOf(start);
    const to = result.indexOf(end, from);
    if (to === -1) throw new Error(`${start} has no ${end} after it`);
    result = `${result.slice(0, from + start.length)}\n${(SECTIONS[section] as () => string)()}\n${result.slice(to)}`;
  }
  return result;
}

const ROOT = new URL('../', import.meta.url);

/** The docs a section may live in: README.md and docs/*.md, relative to the repository. */
export function docFiles(): string[] {
  return [
    'README.md',
    ...readdirSync(new URL('docs/', ROOT))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
}
