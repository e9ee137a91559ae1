import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { classify } from '../../cli/dead-letters';
import { buildProgram } from '../../cli/main';
import { docFiles, renderEnvironmentReference, sectionsIn, withReference } from '../../scripts/config-reference';
import { kopsMessage } from '../../shared/errors/kops-messages';
import { DEAD_LETTER_REASONS } from '../../shared/core/disposition';
import { ERROR_CATALOG, WARNING_CATALOG } from '../../shared/errors/lbsync-error';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('has the two set-up command lines', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it('carries the configuration reference generated from the schemas (run `npm run docs` if this fails)', () => {
    expect(withReference(readme)).toBe(readme);
  });

  it('every generated section (configuration, environment) lives in a doc, and each is up to date (run `npm run docs`)', () => {
    const docs = docFiles().map((file) => ({ file, text: readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8') }));
    expect(docs.flatMap(({ text }) => sectionsIn(text)).sort()).toEqual(['config-reference', 'environment-reference']);
    for (const { file, text } of docs) expect(withReference(text), file).toBe(text);
    expect(renderEnvironmentReference()).toContain(
      '| `SCW_SECRET_KEY` (`LBSYNC_SCW_SECRET_KEY` in a function) | reconcile, watch, CLI | yes | yes |',
    );
  });

  it('has a troubleshooting entry for every error and warning code the code can emit', () => {
    const troubleshooting = readme.slice(readme.indexOf('## Troubleshooting'));
    const missing = [...Object.keys(ERROR_CATALOG), ...Object.keys(WARNING_CATALOG)].filter(
      (code) => !troubleshooting.includes(`### \`${code}\``),
    );
    expect(missing).toEqual([]);
  });

  it("quotes kOps' own error messages with the identifier kOps puts in them (the LB name; the id in listing back-ends)", () => {
    const name = 'api.prod.k8s.local';
    for (const message of [
      kopsMessage.setServers(name),
      kopsMessage.updateBackend(name),
      kopsMessage.createBackend(name),
      kopsMessage.waitLb(name),
      kopsMessage.listBackends('<LB id>'),
      kopsMessage.listServers(),
    ]) {
      expect(readme).toContain(message);
    }
    const troubleshooting = readme.slice(readme.indexOf('## Troubleshooting'));
    expect(troubleshooting).not.toMatch(
      /(updating back-end|creating back-end|waiting for load-balancer|server IPs for load-balancer) <id>/,
    );
  });

  it('links the kOps parity evidence, and documents doctor', () => {
    expect(readme).toContain('(docs/kops-parity.md)');
    expect(readme).toContain('lbsync doctor [-t T] [--no-queue] [-o json]');
    const deploy = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    expect(deploy).toContain('kops-parity.md');
    expect(deploy).toContain('lbsync doctor');
    expect(deploy).toContain('lbsync plan');
  });
});

// docs/operations.md: every command, option, error code, dead-letter reason, log line and link it shows is checked
// against the code, so the guide cannot drift from what the CLI and the functions really do.
describe('docs/operations.md', () => {
  const guide = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const fenced = [...guide.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  const prose = guide.replace(/```[a-z]*\n[\s\S]*?```/g, '');
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
  const code = [...fenced, ...spans];
  const section = (title: string) => {
    const start = guide.indexOf(`\n## ${title}`);
    expect(start, `section "${title}"`).toBeGreaterThan(-1);
    const end = guide.indexOf('\n## ', start + 1);
    return guide.slice(start, end === -1 ? undefined : end);
  };

  it('never tells to run bare `npx lbsync`, and links the guide from README.md and docs/deploy.md', () => {
    expect(guide).not.toMatch(/npx\s+lbsync/);
    expect(guide).toContain('npx --no-install lbsync');
    expect(readme).toContain('(docs/operations.md)');
    expect(readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8')).toContain('(operations.md)');
  });

  it('shows only real lbsync commands, each with options it has', () => {
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: {} };
    const { program } = buildProgram(io);
    const invocations = code.flatMap((text) =>
      [...text.matchAll(/(?:^|[\s(])lbsync((?:[ \t]+[^\s|;&#)]+)*)/gm)].map((m) =>
        (m[1] as string)
          .trim()
          .split(/\s+/)
          .filter((w) => w !== ''),
      ),
    );
    const problems: string[] = [];
    let checked = 0;
    for (const words of invocations) {
      const args = words[0] === '--' ? words.slice(1) : words;
      if (args.length === 0 || (args[0] as string).startsWith('<')) continue; // `npm run lbsync -- <command>`
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
      // `-o json|text` is the CLI convention (issue 13 §2): every command that prints JSON takes it, `--json` its alias.
      if (known.has('--json')) {
        known.add('-o');
        known.add('--output');
      }
      for (const flag of args.filter((a) => /^--?[a-z]/.test(a)).map((a) => a.replace(/=.*/, ''))) {
        if (!known.has(flag)) problems.push(`lbsync ${args.join(' ')}: ${command.name()} has no option ${flag}`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it('cites only error and warning codes from the catalogs, each linked to its README troubleshooting entry', () => {
    const linked = [...guide.matchAll(/\[`([a-z_]+)`\]\(\.\.\/README\.md#([a-z_]+)\)/g)];
    expect(linked.length).toBeGreaterThan(20);
    for (const [, text, anchor] of linked) {
      expect(anchor, `link text ${text}`).toBe(text);
      expect([...Object.keys(ERROR_CATALOG), ...Object.keys(WARNING_CATALOG)], `[${text}](../README.md#${anchor})`).toContain(anchor);
    }
    // The log lines' `code` (and the error's, `error_code` after `| json`), as the guide and its queries filter on it.
    const filtered = [...guide.matchAll(/\b(?:error_)?code="([a-z_]+)"/g)].map((m) => m[1]);
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

  it('links only to files and headings that exist', () => {
    const links = [...guide.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((l) => !/^https?:/.test(l));
    expect(links.length).toBeGreaterThan(10);
    for (const link of links) {
      const [file, anchor] = link.split('#') as [string, string | undefined];
      const target = new URL(file, new URL('../../docs/operations.md', import.meta.url));
      const text = readFileSync(target, 'utf8');
      if (anchor)
        expect(
          [...text.matchAll(/^#+ (.+)$/gm)].map((m) => githubSlug(m[1] as string)),
          link,
        ).toContain(anchor);
    }
  });
});

const ROOT = new URL('../../', import.meta.url);
const exists = (path: string) => existsSync(new URL(path, ROOT));
/** A path with a placeholder (`functions/<name>/handler.ts`) exists when the folder before the placeholder does. */
const pathExists = (path: string) => (path.includes('<') ? exists(path.slice(0, path.indexOf('<'))) : exists(path));
const REPO_PATH = /\b(?:shared|test|scripts|emulator|local|cli|cockpit|functions|bench|chaos|hooks|docs|bin)\/[\w<>./-]*[\w>/]/g;

describe("the README's project layout", () => {
  const section = readme.slice(readme.indexOf('## Project layout'));
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
  const docs = [
    'README.md',
    ...readdirSync(new URL('docs/', ROOT))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  it.each(docs)('%s', (doc) => {
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
function codeLiterals(folders: string[]): string[] {
  const root = new URL('../../', import.meta.url);
  const files = folders.flatMap((folder) =>
    readdirSync(new URL(folder, root), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => new URL(`${folder}/${f}`, root)),
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
