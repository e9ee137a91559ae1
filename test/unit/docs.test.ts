// The docs are checked against the code they describe: the README's promises to a newcomer, the generated pages
// (configuration reference, troubleshooting, the emulator's faults) against their sources, every lbsync command, flag,
// error code, link and path they show against what exists, and the figures that drifted once against their source.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { classify } from '../../cli/dead-letters';
import { buildProgram } from '../../cli/main';
import { renderEnvironmentReference, SECTIONS, sectionsIn } from '../../scripts/config-reference';
import { generated, homelessSections } from '../../scripts/docs';
import { exportedInterfaceFields } from '../../scripts/emulator-reference';
import { DEAD_LETTER_REASONS } from '../../shared/core/disposition';
import { FUNCTION, FUNCTIONS } from '../../functions/registry';
import { OPERATION_NAMES } from '../../emulator/api-routes';
import { COMMAND_ERROR_GUIDE, ERROR_GUIDE, WARNING_GUIDE } from '../../scripts/error-guide';
import { kopsMessage } from '../../shared/errors/kops-messages';
import { COMMAND_ERROR_CATALOG, ERROR_CATALOG, WARNING_CATALOG } from '../../shared/errors/lbsync-error';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const exists = (path: string) => existsSync(new URL(path, ROOT));
/** A path with a placeholder (`functions/<name>/handler.ts`) exists when the folder before the placeholder does. */
const pathExists = (path: string) => (path.includes('<') ? exists(path.slice(0, path.indexOf('<'))) : exists(path));
const REPO_PATH = /\b(?:shared|test|scripts|emulator|local|cli|cockpit|functions|bench|chaos|hooks|docs|bin)\/[\w<>./-]*[\w>/]/g;
const readme = read('README.md');
const architecture = read('docs/architecture.md');
const troubleshooting = read('docs/troubleshooting.md');
const CODES = [...Object.keys(ERROR_CATALOG), ...Object.keys(COMMAND_ERROR_CATALOG), ...Object.keys(WARNING_CATALOG)];
const GUIDE = { ...ERROR_GUIDE, ...COMMAND_ERROR_GUIDE, ...WARNING_GUIDE } as Record<string, { examples: readonly string[]; doc: string }>;
/** Every Markdown page a reader is sent to. */
const DOCS = [
  'README.md',
  'hooks/README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Code a page shows: fenced blocks and inline spans. */
function codeOf(text: string): string[] {
  const fenced = [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const prose = text.replace(/```[a-z]*\n[\s\S]*?```/g, '');
  return [...fenced, ...[...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string)];
}

const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: {} };
const { program } = buildProgram(io);

/** Each `lbsync ...` a page shows that names a command, subcommand or option the CLI lacks; and how many were checked. */
function lbsyncProblems(text: string): { problems: string[]; checked: number } {
  const invocations = codeOf(text).flatMap((code) =>
    // Not the value of an option (`--prefix lbsync`).
    [...code.matchAll(/(?:^|[\s(])(?<!--[\w-]+[ \t])lbsync((?:[ \t]+[^\s|;&#)]+)*)/gm)].map((m) =>
      (m[1] as string)
        .trim()
        .split(/\s+/)
        .filter((w) => w !== ''),
    ),
  );
  const problems: string[] = [];
  let checked = 0;
  const globalFlags = new Set(['-h', '--help', ...program.options.flatMap((o) => [o.short, o.long]).filter((f): f is string => !!f)]);
  for (const words of invocations) {
    const args = words[0] === '--' ? words.slice(1) : [...words];
    // Global options go before the command too: `lbsync -o json plan`, `lbsync --version`.
    while (args[0]?.startsWith('-')) {
      const flag = args.shift() as string;
      if (!globalFlags.has(flag)) problems.push(`lbsync ${words.join(' ')}: no global option ${flag}`);
      if (['-o', '--output', '-p', '--profile'].includes(flag)) args.shift();
    }
    if (args.length === 0 || /^(<|\.\.\.)/.test(args[0] as string)) continue; // `npm run lbsync -- <command>`, `lbsync ...`
    let command: Command | undefined = program.commands.find((c) => c.name() === args[0]);
    if (!command) {
      problems.push(`lbsync ${args.join(' ')}: no command "${args[0]}"`);
      continue;
    }
    const sub = args[1];
    const subcommands = command.commands.filter((c) => c.name() !== 'help');
    if (subcommands.length > 0 && sub !== undefined && !sub.startsWith('-')) {
      command = subcommands.find((c) => c.name() === sub);
      if (!command) {
        problems.push(`lbsync ${args.join(' ')}: "${args[0]}" has no subcommand "${sub}"`);
        continue;
      }
    }
    checked++;
    const known = new Set<string>(['-h', '--help']);
    for (let c: Command | null = command; c; c = c.parent) {
      for (const o of c.options) {
        if (o.short) known.add(o.short);
        if (o.long) known.add(o.long);
      }
    }
    // `-o json|text` is the CLI convention: every command that prints JSON takes it, `--json` its alias.
    if (known.has('--json')) {
      known.add('-o');
      known.add('--output');
    }
    // A flag in an optional or alternative group (`[--watch [s]]`, `(--url URL | --queue)`) is checked too.
    const flags = args
      .map((a) => a.replace(/^[[(]+/, ''))
      .filter((a) => /^--?[a-z]/.test(a))
      .map((a) => a.replace(/[=\])].*/, ''));
    for (const flag of flags) {
      if (!known.has(flag)) problems.push(`lbsync ${args.join(' ')}: ${command.name()} has no option ${flag}`);
    }
  }
  return { problems, checked };
}

describe('README: a newcomer reads it in minutes', () => {
  const lines = readme.split('\n');
  const lineOf = (text: string) => lines.findIndex((line) => line.includes(text)) + 1;
  /** Two screens of a terminal or a browser: what a newcomer reads before scrolling on. */
  const TWO_SCREENS = 100;

  it('is at most ~250 lines, and has the two set-up command lines', () => {
    expect(lines.length).toBeLessThanOrEqual(250);
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it('shows the two commands, the CLI and the docs map within its first two screens', () => {
    for (const landmark of ['npm ci && npm start', 'npm ci && npm test', '## The `lbsync` CLI', '## Docs map']) {
      expect(lineOf(landmark), landmark).toBeGreaterThan(0);
      expect(lineOf(landmark), landmark).toBeLessThanOrEqual(TWO_SCREENS);
    }
  });

  it('its CLI cheat sheet names every command, and shows the fast way to run it first', () => {
    const sheet = readme.slice(readme.indexOf('## The `lbsync` CLI'), readme.indexOf('## Docs map'));
    const commands = program.commands.map((c) => c.name()).filter((name) => name !== 'help');
    expect(commands.length).toBeGreaterThan(10);
    expect(commands.filter((name) => !sheet.includes(`lbsync ${name}`))).toEqual([]);
    expect(sheet).toContain('lbsync doctor [-t T] [--no-queue] [-o json]');
    for (const page of [readme, read('docs/cli.md')]) {
      expect(page.indexOf('node bin/lbsync.mjs')).toBeGreaterThan(-1);
      expect(page.indexOf('node bin/lbsync.mjs')).toBeLessThan(page.indexOf('npx --no-install lbsync'));
    }
  });

  it('its docs map links every page of docs/ and the boot hook', () => {
    const start = readme.indexOf('## Docs map');
    const map = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const pages = DOCS.filter((doc) => doc !== 'README.md');
    expect(pages.filter((page) => !map.includes(`](${page})`))).toEqual([]);
  });
});

describe('generated docs are current (run `npm run docs` if this fails)', () => {
  const GENERATED = generated();

  it.each(Object.keys(GENERATED))('%s', (path) => {
    expect(GENERATED[path]?.(), path).toBe(read(path));
  });

  it('every generated configuration section (targets, environment) lives in a doc', () => {
    expect(Object.keys(SECTIONS).sort()).toEqual(['config-reference', 'environment-reference']);
    expect(homelessSections()).toEqual([]);
    expect(sectionsIn(read('docs/configuration.md')).sort()).toEqual(['config-reference', 'environment-reference']);
    expect(Object.keys(GENERATED)).toEqual(
      expect.arrayContaining(['docs/configuration.md', 'docs/troubleshooting.md', 'docs/emulator.md']),
    );
    expect(renderEnvironmentReference()).toContain(
      '| `SCW_SECRET_KEY` (`LBSYNC_SCW_SECRET_KEY` in a function) | reconcile, watch, CLI | yes | yes |',
    );
  });

  it('the configuration reference sits between its markers in docs/configuration.md', () => {
    expect(read('docs/configuration.md')).toMatch(
      /<!-- config-reference:start[\s\S]*#### Target \(full form\)[\s\S]*<!-- config-reference:end -->/,
    );
  });

  it("the emulator's fault reference lists every field a fault has, each with its meaning, and the operation names", () => {
    const page = read('docs/emulator.md');
    const fields = [...exportedInterfaceFields('FaultSpec'), ...exportedInterfaceFields('FaultWorldChange')];
    expect(fields.length).toBeGreaterThan(12);
    expect(fields.filter((f) => !page.includes(`| \`${f.name}\` |`))).toEqual([]);
    // A field added without a doc comment would show "—" as its meaning.
    expect(fields.filter((f) => f.doc === '').map((f) => f.name)).toEqual([]);
    for (const operation of ['ListLbs', 'ListBackends', 'SetBackendServers', 'ListServers', 'ListIPs', 'ListEvents', 'Unknown'])
      expect(page).toContain(`| \`${operation}\` |`);
  });
});

describe('docs/troubleshooting.md', () => {
  it('has one entry per error and warning code, and no other', () => {
    const entries = [...troubleshooting.matchAll(/^### `([a-z0-9_]+)`$/gm)].map((m) => m[1]);
    expect(entries.sort()).toEqual([...CODES].sort());
  });

  it('gives every entry the hint the tool prints, and its guide', () => {
    for (const [code, { hint }] of [
      ...Object.entries(ERROR_CATALOG),
      ...Object.entries(COMMAND_ERROR_CATALOG),
      ...Object.entries(WARNING_CATALOG),
    ]) {
      const start = troubleshooting.indexOf(`### \`${code}\`\n`);
      const entry = troubleshooting.slice(start, troubleshooting.indexOf('\n### ', start + 1));
      expect(entry, code).toContain(`Hint, as printed: ${hint}`);
      expect(entry, code).toContain(GUIDE[code]?.doc);
    }
  });

  it("shows messages made of the words the code prints (ours, kOps', the Scaleway SDK's, zod's, the API's)", () => {
    const printed = [
      ...literalsOf(['shared', 'cli', 'functions'], '.ts'), // not the guide (scripts/): it would match itself
      ...literalsOf([relative(fileURLToPath(ROOT), sdkErrorFolder())], '.js'),
      ...literalsOf(['node_modules/zod/v4/locales/en.js'], '.js'),
      ...literalsOf(['test/fixtures/scaleway-api'], '.yaml'), // the API's own words, as recorded
    ].flatMap(wordRuns);
    const examples = Object.values(GUIDE).flatMap((g) => g.examples);
    expect(examples.length).toBeGreaterThan(20);
    expect(examples.flatMap((example) => unprintedRuns(example, printed).map((run) => `"${run}" in: ${example}`))).toEqual([]);
    // The check itself: words no code prints are caught; values are not taken for words.
    expect(unprintedRuns('no load-balancer could be found anywhere: the backend was eaten by a grue', printed)).toHaveLength(2);
    expect(
      unprintedRuns(`${kopsMessage.waitLb('api.x.k8s.local')}: not ready after 5 ms (status ready, instances pending)`, printed),
    ).toEqual([]);
  });

  it("quotes kOps' own error messages with the identifier kOps puts in them (the LB name; the id in listing back-ends)", () => {
    const name = 'api.prod.k8s.local';
    const parity = read('docs/kops-parity.md');
    for (const message of [
      kopsMessage.setServers(name),
      kopsMessage.updateBackend(name),
      kopsMessage.createBackend(name),
      kopsMessage.waitLb(name),
      kopsMessage.listBackends('<LB id>'),
      kopsMessage.listServers(),
    ]) {
      expect(troubleshooting, message).toContain(message);
      expect(parity, message).toContain(message);
    }
    expect(troubleshooting + parity).not.toMatch(
      /(updating back-end|creating back-end|waiting for load-balancer|server IPs for load-balancer) <id>/,
    );
  });

  it('is where every runbook link points: nothing links README.md#<code> any more', () => {
    const linksToReadme = DOCS.flatMap((doc) =>
      [...read(doc).matchAll(/README\.md#([a-z0-9_]+)/g)].filter((m) => CODES.includes(m[1] as string)).map((m) => `${doc}: ${m[0]}`),
    );
    expect(linksToReadme).toEqual([]);
    expect(read('cockpit/alerts.yaml')).toContain('docs/troubleshooting.md#{{ $labels.code }}');
  });
});

describe('every page shows only real lbsync commands, each with options it has', () => {
  it.each(DOCS)('%s', (doc) => {
    const { problems } = lbsyncProblems(read(doc));
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('the check reads many invocations, and catches a made-up command or option', () => {
    expect(DOCS.reduce((n, doc) => n + lbsyncProblems(read(doc)).checked, 0)).toBeGreaterThan(60);
    expect(
      lbsyncProblems('run `lbsync plna`, `lbsync plan --tagret x`, `lbsync status [--wacth 5]` or `lbsync --verbose plan`').problems,
    ).toHaveLength(4);
    expect(lbsyncProblems('`lbsync -o json plan`, `lbsync --version`, `provision --prefix lbsync --function-timeout 60`').problems).toEqual(
      [],
    );
  });
});

describe('every page links only to files and headings that exist', () => {
  it.each(DOCS)('%s', (doc) => {
    const text = read(doc).replace(/```[a-z]*\n[\s\S]*?```/g, '');
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((l) => !/^(https?|mailto):/.test(l));
    for (const link of links) {
      const [file, anchor] = link.split('#') as [string, string | undefined];
      const target = file === '' ? new URL(doc, ROOT) : new URL(file, new URL(doc, ROOT));
      expect(existsSync(target), `${doc}: ${link}`).toBe(true);
      if (anchor && target.pathname.endsWith('.md'))
        expect(
          [...readFileSync(target, 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) => githubSlug(m[1] as string)),
          `${doc}: ${link}`,
        ).toContain(anchor);
    }
  });
});

describe('docs that drifted once agree with their source', () => {
  it("docs/deploy.md's functions table gives each function serverless.yml's memory, timeout and scale", () => {
    const functions = (parseYaml(read('serverless.yml')) as { functions: Record<string, Record<string, unknown>> }).functions;
    const deploy = read('docs/deploy.md');
    expect(Object.keys(functions)).toHaveLength(4);
    for (const [name, fn] of Object.entries(functions)) {
      const row = deploy.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, name).toContain(
        `| ${fn.memoryLimit} MB / ${String(fn.timeout).replace(/s$/, '')} s, scale ${fn.minScale}–${fn.maxScale} |`,
      );
    }
  });

  it("the permissions_denied hint names only permission sets docs/deploy.md's IAM table gives", () => {
    const sets = (text: string) => new Set(text.match(/\b[A-Z][A-Za-z]+(?:FullAccess|ReadOnly|PrivateAccess)\b/g) ?? []);
    const iam = read('docs/deploy.md').split('## 2. IAM')[1]?.split('\n## ')[0] ?? '';
    const named = [...sets(ERROR_CATALOG.permissions_denied.hint)];
    expect(named.length).toBeGreaterThan(2);
    expect(named.filter((set) => !sets(iam).has(set))).toEqual([]);
  });

  it('names only test files that exist (a moved test is renamed in the docs too)', () => {
    const tests = new Set(
      readdirSync(new URL('test/', ROOT), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => f.split('/').pop()),
    );
    const named = DOCS.flatMap((doc) => [...read(doc).matchAll(/[\w-]+\.test\.ts/g)].map((m) => [doc, m[0]] as const));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter(([, file]) => !tests.has(file)).map(([doc, file]) => `${doc}: ${file}`)).toEqual([]);
  });
});

// docs/operations.md: every command, option, error code, dead-letter reason, log line and link it shows is checked
// against the code, so the guide cannot drift from what the CLI and the functions really do.
describe('docs/operations.md', () => {
  const guide = read('docs/operations.md');
  const fenced = [...guide.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const section = (title: string) => {
    const start = guide.indexOf(`\n## ${title}`);
    expect(start, `section "${title}"`).toBeGreaterThan(-1);
    const end = guide.indexOf('\n## ', start + 1);
    return guide.slice(start, end === -1 ? undefined : end);
  };

  it('never tells to run bare `npx lbsync`, and links the guide from README.md and docs/deploy.md', () => {
    expect(guide).not.toMatch(/npx\s+lbsync/);
    expect(readme).toContain('(docs/operations.md)');
    expect(read('docs/deploy.md')).toContain('(operations.md)');
  });

  it('cites only error and warning codes from the catalogs, each linked to its troubleshooting entry', () => {
    const linked = [...guide.matchAll(/\[`([a-z0-9_]+)`\]\(([^)#]*)#([a-z0-9_]+)\)/g)];
    expect(linked.length).toBeGreaterThan(20);
    for (const [, text, page, anchor] of linked) {
      expect(page, `[${text}](${page}#${anchor})`).toBe('troubleshooting.md');
      expect(anchor, `link text ${text}`).toBe(text);
      expect(CODES, `[${text}](${page}#${anchor})`).toContain(anchor);
    }
    // The log lines' `code` (and the error's, `error_code` after `| json`), as the guide and its queries filter on it.
    const filtered = [...guide.matchAll(/\b(?:error_)?code="([a-z0-9_]+)"/g)].map((m) => m[1]);
    expect(filtered.length).toBeGreaterThan(3);
    for (const name of filtered) expect(Object.keys(ERROR_CATALOG), `code="${name}"`).toContain(name);
  });

  it('explains every dead-letter reason `lbsync dlq list` can show, and no other', () => {
    const message = (body: string) => ({ messageId: 'm-1', receiptHandle: 'r-1', receiveCount: 1, body });
    const event = JSON.stringify({
      version: 1,
      id: 'evt-1',
      source: 'manual',
      target: 'prod',
      occurredAt: '2026-01-01T00:00:00Z',
      attempt: 3,
    });
    // What the reconcile function writes, plus what the CLI names a message the queue moved itself and one it cannot read.
    const reasons = new Set<string>([...DEAD_LETTER_REASONS, classify(message(event)).reason, classify(message('not json')).reason]);
    const table = section('3. Dead letters');
    const rows = [...table.matchAll(/^\| `([a-z_]+)`/gm)].map((m) => m[1]);
    expect(new Set(rows)).toEqual(reasons);
  });

  it('cites only log lines the code emits (messages in the watch table, and the strings its queries filter on)', () => {
    const patterns = codeLiterals(['shared', 'functions', 'cli']);
    const watchTable = section('6. What to watch')
      .split('\n')
      .filter((line) => line.startsWith('| `'));
    const messages = watchTable
      .flatMap((row) => [...(row.split(' | ')[0] as string).matchAll(/`([^`]+)`/g)].map((m) => m[1] as string))
      .filter((s) => s.includes(' ') && !s.includes('='));
    const filters = fenced.join('\n').match(/\|[=~] "[^"]+"/g) ?? [];
    const filterStrings = filters.flatMap((f) => f.slice(4, -1).split('|')).filter((s) => !/[[\]+*?()^$\\]/.test(s));
    expect(messages.length).toBeGreaterThan(20);
    expect(filterStrings.length).toBeGreaterThan(8);
    const unmatched = [
      ...messages.filter((m) => !patterns.some((p) => globsMeet(`${docPattern(m)}*`, p))),
      ...filterStrings.filter((s) => !patterns.some((p) => globsMeet(`*${docPattern(s)}*`, p))),
    ];
    expect(unmatched).toEqual([]);
    // The check itself: lines the code does not emit are caught.
    for (const made_up of [
      'retry <n> after <ms> ms: <message>',
      'outcome for <target>: <outcome>',
      'sweep: <n> targets skipped',
      'dead letter written: <reason>',
      'hand-off failed',
    ]) {
      expect(
        patterns.filter((p) => globsMeet(`${docPattern(made_up)}*`, p)),
        made_up,
      ).toEqual([]);
    }
  });
});

describe("docs/architecture.md's table of the functions' answers", () => {
  it('has a row per function of functions/registry.ts, in its order, each with its trigger', () => {
    const start = architecture.indexOf("\n### The functions' answers\n");
    const section = architecture.slice(start, architecture.indexOf('\n### ', start + 1));
    const rows = [...section.matchAll(/^\| `([a-z-]+)` \| ([^|]+) \|/gm)].map((m) => [m[1], (m[2] as string).trim().toLowerCase()]);
    expect(start).toBeGreaterThan(-1);
    expect(rows.map(([name]) => name)).toEqual(FUNCTIONS);
    for (const [name, trigger] of rows) expect(trigger, name).toMatch(new RegExp(`^${FUNCTION[name as keyof typeof FUNCTION].trigger}\\b`));
  });
});

describe("docs/architecture.md's layout", () => {
  const start = architecture.indexOf('\n## Layout\n');
  const section = architecture.slice(start, architecture.indexOf('\n## ', start + 1));
  const lines = section.split('\n').filter((line) => /^ {4}\S|^ {6}\S/.test(line));
  /** Each shared/ folder the layout names, with the modules it lists under it. */
  const listed = new Map<string, string[]>();
  const named: string[] = [];
  let folder: string | undefined;
  for (const line of lines) {
    const [first = '', ...description] = line.trim().split(/\s{2,}/);
    named.push(...(description.join(' ').match(REPO_PATH) ?? []));
    if (line.startsWith('      ')) {
      if (!folder) throw new Error(`a module line outside a folder: ${line}`);
      listed.get(folder)?.push(...first.split(/,\s*/).map((name) => `${folder}${/\.\w+$/.test(name) ? name : `${name}.ts`}`));
    } else {
      const paths = first.split(' ');
      named.push(...paths);
      folder = paths.length === 1 && /^shared\/\w+\/$/.test(paths[0] as string) ? paths[0] : undefined;
      if (folder) listed.set(folder, []);
    }
  }

  it('names only paths that exist', () => {
    expect(start).toBeGreaterThan(-1);
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((path) => !pathExists(path))).toEqual([]);
    expect([...listed.values()].flat().filter((path) => !exists(path))).toEqual([]);
  });

  it('lists every folder of shared/, and in each every module, as the tree has them', () => {
    const folders = readdirSync(new URL('shared/', ROOT), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `shared/${e.name}/`);
    expect([...listed.keys()].sort()).toEqual(folders.sort());
    for (const [dir, modules] of listed) {
      expect(modules.sort(), dir).toEqual(
        readdirSync(new URL(dir, ROOT))
          .map((file) => `${dir}${file}`)
          .sort(),
      );
    }
  });
});

describe('docs name files that exist', () => {
  it.each(DOCS)('%s', (doc) => {
    const text = readFileSync(new URL(doc, ROOT), 'utf8');
    // A path followed by :<line> cites kOps' own source (docs/kops-parity.md), not this repository.
    const cited = new Set([...text.matchAll(new RegExp(`(${REPO_PATH.source}):\\d`, 'g'))].map((m) => m[1]));
    const files = [...new Set(text.match(REPO_PATH) ?? [])].filter(
      (path) => /\.(?:ts|mjs|cjs|json|md|ya?ml|sh)$/.test(path) && !cited.has(path),
    );
    expect(files.filter((path) => !pathExists(path))).toEqual([]);
  });
});

/** Marks the end of a code literal: the message may go on there. */
const END = '\u0001';

/**
 * Every string and template literal of the sources under these folders, as a glob: `${...}` becomes `*`, and an
 * END mark stands for whatever the code may add after it (a literal is often the start of a message).
 */
function codeLiterals(folders: string[], extension = '.ts', except: string[] = []): string[] {
  const files = folders.flatMap((folder) =>
    readdirSync(new URL(folder, ROOT), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith(extension) && !except.includes(`${folder}/${f}`))
      .map((f) => new URL(`${folder}/${f}`, ROOT)),
  );
  return files.flatMap((file) => {
    const source = readFileSync(file, 'utf8');
    const literals = [...source.matchAll(/`((?:[^`\\]|\\.)*)`|'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"/g)].map(
      (m) => m[1] ?? m[2] ?? m[3] ?? '',
    );
    // A literal with little fixed text (`${a}: ${b}`) would match any line: it proves nothing.
    return literals
      .map((l) => `${l.replace(/\$\{(?:[^{}]|\{[^{}]*\})*\}/g, '*')}${END}`)
      .filter((p) => p.replaceAll('*', '').replaceAll(END, '').length >= 6);
  });
}

/** Where the Scaleway SDK builds its error messages (`resource lb with ID ... is in a transient state`, `http error 503`). */
function sdkErrorFolder(): string {
  return join(dirname(fileURLToPath(import.meta.resolve('@scaleway/sdk-client'))), 'scw', 'errors');
}

/** The string and template literals of these files or folders, interpolations kept as `${...}`. */
function literalsOf(paths: string[], extension: string, except: string[] = []): string[] {
  const files = paths.flatMap((path) =>
    path.endsWith(extension)
      ? [path]
      : readdirSync(new URL(path, ROOT), { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith(extension) && !except.includes(`${path}/${f}`))
          .map((f) => `${path}/${f}`),
  );
  return files.flatMap((file) =>
    [...read(file).matchAll(/`((?:[^`\\]|\\.)*)`|'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"/g)].map((m) =>
      (m[1] ?? m[2] ?? m[3] ?? '').replace(/\\n/g, '\n').replace(/\\"/g, '"'),
    ),
  );
}

/** Stands for a value in a word run: an interpolation in the code, a name, number, address or `<placeholder>` in a page. */
const VALUE = '*';

/**
 * A text as runs of words, cut where the code joins parts (`: `, `; `, `, `, brackets, a line break): plain words in
 * lower case, and VALUE for a value (`${...}` in the code; in a page a name, number, address, quoted or all-caps word,
 * `<...>`).
 */
function wordRuns(text: string): string[][] {
  const runs: string[][] = [[]];
  const cut = () => runs.push([]);
  for (const token of text
    .replace(/\$\{(?:[^{}]|\{[^{}]*\})*\}/g, '\u0000')
    .replace(/<[^>\s]+>/g, '\u0000')
    .replace(/[{}"]/g, ' ') // JSON bodies and quoted values: their words count, a value is a value anyway
    .split(/\s+/)) {
    if (/^[([]/.test(token)) cut();
    const bare = token.replace(/^[([]+/, '').replace(/[)\],:;.!?]+$/, '');
    const quoted = /^["'`].*["'`]$/.test(bare) || bare.includes('\u0000');
    const word = !quoted && /^[A-Za-z][A-Za-z'-]*$/.test(bare) && !/^[A-Z]{2,}$/.test(bare);
    if (bare !== '') (runs[runs.length - 1] as string[]).push(word ? bare.toLowerCase() : VALUE);
    if (/[)\],:;]$/.test(token)) cut();
  }
  return runs.filter((run) => run.length > 0);
}

function trimValues(run: string[]): string[] {
  let [start, end] = [0, run.length];
  while (start < end && run[start] === VALUE) start++;
  while (end > start && run[end - 1] === VALUE) end--;
  return run.slice(start, end);
}

/**
 * Whether these words of a page are, in a row, words of this run of the code: its VALUE stands for any one word, and
 * at least two plain words must be the code's own (a run of values alone would match anything).
 */
function inRun(words: string[], code: string[]): boolean {
  for (let at = 0; at + words.length <= code.length; at++) {
    const slice = code.slice(at, at + words.length);
    if (slice.filter((w) => w !== VALUE).length >= 2 && words.every((word, i) => slice[i] === VALUE || slice[i] === word)) return true;
  }
  return false;
}

/**
 * The runs of a message the code does not print. A run (three words or more, two of them plain) is printed when most
 * of its plain words (60 %) lie in pieces of three words or more, each found in a run of the code: where one literal
 * ends and the next begins (`${step}: ${cause}`, `${what} body`), the code joins them with a value.
 */
function unprintedRuns(message: string, printed: string[][]): string[] {
  const plain = (words: string[]) => words.filter((w) => w !== VALUE).length;
  const coveredWords = (run: string[]) => {
    const best: number[] = Array(run.length + 1).fill(0);
    for (let i = run.length - 1; i >= 0; i--) {
      best[i] = best[i + 1] as number;
      for (let j = i + 3; j <= run.length; j++)
        if (printed.some((code) => inRun(run.slice(i, j), code)))
          best[i] = Math.max(best[i] as number, plain(run.slice(i, j)) + (best[j] as number));
    }
    return best[0] as number;
  };
  return wordRuns(message)
    .map(trimValues)
    .filter((run) => run.length >= 3 && plain(run) >= 2)
    .filter((run) => coveredWords(run) < 0.6 * plain(run))
    .map((run) => run.join(' '));
}

/** A line as the guide writes it, as a glob: `<placeholder>` and `...` stand for any text. */
function docPattern(text: string): string {
  return text.replace(/<[^>]+>|\.\.\.|…/g, '*').trim();
}

/**
 * Whether the guide's glob `doc` describes a line of the code's glob `code` (`*` = any text). The code's `*`
 * (an interpolated value) may stand for a value the guide spells out, but only one without spaces (`applied`,
 * `LBSYNC_TARGETS`); the code's END may stand for more text only right after text both share; and most of the
 * guide's own text must be the code's own text, so a literal like `${a}: ${b}` proves nothing.
 */
function globsMeet(doc: string, code: string): boolean {
  const memo = new Map<string, number>();
  // The most characters of doc's text matched by code's text, in some alignment of the two; -1 when none exists.
  // `joined`: the last step matched a character of both, so the code's END may carry on from there.
  const best = (i: number, j: number, joined: boolean): number => {
    const key = `${i},${j},${joined}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result = -1;
    if (i === doc.length && j === code.length) result = 0;
    else if (doc[i] === '*') result = Math.max(best(i + 1, j, false), j < code.length ? best(i, j + 1, false) : -1);
    else if (code[j] === END) result = Math.max(best(i, j + 1, false), joined && i < doc.length ? best(i + 1, j, true) : -1);
    else if (code[j] === '*') result = Math.max(best(i, j + 1, false), i < doc.length && doc[i] !== ' ' ? best(i + 1, j, false) : -1);
    else if (i < doc.length && j < code.length && doc[i] === code[j]) {
      const rest = best(i + 1, j + 1, true);
      result = rest < 0 ? -1 : rest + 1;
    }
    memo.set(key, result);
    return result;
  };
  const text = doc.replace(/\*/g, '').length;
  return best(0, 0, false) >= Math.min(text, Math.max(6, Math.ceil(0.4 * text)));
}

/** The anchor GitHub gives a heading. */
function githubSlug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

describe('how the docs tell users to run lbsync', () => {
  // Outside a clone, a bare `npx lbsync` fetches whatever package of that name the registry has.
  const root = new URL('../../', import.meta.url);
  const list = (dir: string, ext: string) => {
    const base = new URL(dir, root);
    return existsSync(base)
      ? readdirSync(base, { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith(ext))
          .map((f) => `${dir}${f}`)
      : [];
  };
  const files = [
    'README.md',
    'hooks/README.md',
    ...list('docs/', '.md'),
    ...list('cli/', '.ts'),
    ...list('local/', '.ts'),
    ...list('bin/', '.mjs'),
  ];
  /** Every `npx ... lbsync` invocation whose npx flags lack --no-install (or its spelling --no). */
  const bareNpx = (text: string) =>
    [...text.matchAll(/\bnpx((?:\s+-[\w-]+)*)\s+lbsync\b/g)].filter((m) => !/--no(-install)?\b/.test(m[1] ?? '')).map((m) => m[0]);

  it('the check finds what it looks for', () => {
    expect(bareNpx('run `npx lbsync plan`, or npx -y lbsync, but not npx --no-install lbsync nor npm run lbsync --')).toEqual([
      'npx lbsync',
      'npx -y lbsync',
    ]);
  });

  it('never a bare `npx lbsync` in the README, docs/, hooks/, the CLI help or npm start hints', () => {
    expect(files).toContain('docs/deploy.md');
    expect(files).toContain('local/main.ts');
    const found = files.flatMap((file) => bareNpx(readFileSync(new URL(file, root), 'utf8')).map((hit) => `${file}: ${hit}`));
    expect(found).toEqual([]);
    expect(readme).toContain('npx --no-install lbsync');
  });
});

describe('operation names', () => {
  it('are spelt one way, as the call log and a fault name them (ListLbs, not ListLBs), in every page and the CLI', () => {
    const names = new Map(OPERATION_NAMES.map((name) => [name.toLowerCase(), name]));
    const doctor = readdirSync(new URL('cli/doctor/', ROOT)).map((file) => `cli/doctor/${file}`);
    expect(doctor).toContain('cli/doctor/permission-ledger.ts');
    const texts = [...DOCS, ...doctor].map((file) => [file, read(file)] as const);
    const misspelt = texts.flatMap(([file, text]) =>
      [...text.matchAll(/\b[A-Z][a-z]+(?:[A-Z][A-Za-z]*)+\b/g)]
        .map((m) => m[0])
        .filter((word) => names.has(word.toLowerCase()) && names.get(word.toLowerCase()) !== word)
        .map((word) => `${file}: ${word} (the call log says ${names.get(word.toLowerCase())})`),
    );
    expect(misspelt).toEqual([]);
    expect(names.get('listlbs')).toBe('ListLbs');
  });
});
