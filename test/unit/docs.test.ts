import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withReference } from '../../scripts/config-reference';
import { kopsMessage } from '../../shared/errors/kops-messages';
import { ERROR_CATALOG } from '../../shared/errors/lbsync-error';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('has the two set-up command lines', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it('carries the configuration reference generated from the schemas (run `npm run docs` if this fails)', () => {
    expect(withReference(readme)).toBe(readme);
  });

  it('has a troubleshooting entry for every error code the code can emit', () => {
    const troubleshooting = readme.slice(readme.indexOf('## Troubleshooting'));
    const missing = Object.keys(ERROR_CATALOG).filter((code) => !troubleshooting.includes(`### \`${code}\``));
    expect(missing).toEqual([]);
  });

  it("quotes kOps' own error messages with the identifier kOps puts in them (the LB name; the id in listing back-ends)", () => {
    const name = 'api.prod.k8s.local';
    for (const message of [kopsMessage.setServers(name), kopsMessage.updateBackend(name), kopsMessage.createBackend(name), kopsMessage.waitLb(name), kopsMessage.listBackends('<LB id>'), kopsMessage.listServers()]) {
      expect(readme).toContain(message);
    }
    const troubleshooting = readme.slice(readme.indexOf('## Troubleshooting'));
    expect(troubleshooting).not.toMatch(/(updating back-end|creating back-end|waiting for load-balancer|server IPs for load-balancer) <id>/);
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

const ROOT = new URL('../../', import.meta.url);
const exists = (path: string) => existsSync(new URL(path, ROOT));
/** A path with a placeholder (`functions/<name>/handler.ts`) exists when the folder before the placeholder does. */
const pathExists = (path: string) => (path.includes('<') ? exists(path.slice(0, path.indexOf('<'))) : exists(path));
const REPO_PATH = /\b(?:shared|test|scripts|emulator|local|cli|functions|bench|chaos|hooks|docs|bin)\/[\w<>./-]*[\w>/]/g;

describe("the README's project layout", () => {
  const section = readme.slice(readme.indexOf('## Project layout'));
  const lines = section.split('\n').filter((line) => /^ {4}\S|^ {6}\S/.test(line));
  /** Each shared/ folder the layout names, with the modules it lists under it. */
  const listed = new Map<string, string[]>();
  const named: string[] = [];
  let folder: string | undefined;
  for (const line of lines) {
    const [first = '', ...description] = line.trim().split(/\s{2,}/);
    named.push(...description.join(' ').match(REPO_PATH) ?? []);
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
    const folders = readdirSync(new URL('shared/', ROOT), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `shared/${e.name}/`);
    expect([...listed.keys()].sort()).toEqual(folders.sort());
    for (const [dir, modules] of listed) {
      expect(modules.sort(), dir).toEqual(readdirSync(new URL(dir, ROOT)).map((file) => `${dir}${file}`).sort());
    }
  });
});

describe('docs name files that exist', () => {
  const docs = ['README.md', ...readdirSync(new URL('docs/', ROOT)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  it.each(docs)('%s', (doc) => {
    const text = readFileSync(new URL(doc, ROOT), 'utf8');
    // A path followed by :<line> cites kOps' own source (docs/kops-parity.md), not this repository.
    const cited = new Set([...text.matchAll(new RegExp(`(${REPO_PATH.source}):\\d`, 'g'))].map((m) => m[1]));
    const files = [...new Set(text.match(REPO_PATH) ?? [])].filter((path) => /\.(?:ts|mjs|cjs|json|md|ya?ml|sh)$/.test(path) && !cited.has(path));
    expect(files.filter((path) => !pathExists(path))).toEqual([]);
  });
});
