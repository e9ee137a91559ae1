import { readFileSync } from 'node:fs';
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
