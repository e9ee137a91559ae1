import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withReference } from '../../scripts/config-reference';
import { kopsMessage } from '../../shared/api-errors';
import { ERROR_CATALOG } from '../../shared/errors';

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

describe('how the docs tell users to run lbsync', () => {
  // Outside a clone, a bare `npx lbsync` fetches whatever package of that name the registry has.
  const root = new URL('../../', import.meta.url);
  const list = (dir: string, ext: string) => {
    const base = new URL(dir, root);
    return existsSync(base) ? readdirSync(base, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith(ext)).map((f) => `${dir}${f}`) : [];
  };
  const files = ['README.md', 'hooks/README.md', ...list('docs/', '.md'), ...list('cli/', '.ts'), ...list('local/', '.ts'), ...list('bin/', '.mjs')];
  /** Every `npx ... lbsync` invocation whose npx flags lack --no-install (or its spelling --no). */
  const bareNpx = (text: string) => [...text.matchAll(/\bnpx((?:\s+-[\w-]+)*)\s+lbsync\b/g)].filter((m) => !/--no(-install)?\b/.test(m[1] ?? '')).map((m) => m[0]);

  it('the check finds what it looks for', () => {
    expect(bareNpx('run `npx lbsync plan`, or npx -y lbsync, but not npx --no-install lbsync nor npm run lbsync --')).toEqual(['npx lbsync', 'npx -y lbsync']);
  });

  it('never a bare `npx lbsync` in the README, docs/, hooks/, the CLI help or npm start hints', () => {
    expect(files).toContain('docs/deploy.md');
    expect(files).toContain('local/main.ts');
    const found = files.flatMap((file) => bareNpx(readFileSync(new URL(file, root), 'utf8')).map((hit) => `${file}: ${hit}`));
    expect(found).toEqual([]);
    expect(readme).toContain('npx --no-install lbsync');
  });
});
