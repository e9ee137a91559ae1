import { readFileSync } from 'node:fs';
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

  it("quotes kOps' own error messages", () => {
    for (const message of [kopsMessage.setServers('<lb>'), kopsMessage.updateBackend('<lb>'), kopsMessage.createBackend('<lb>'), kopsMessage.listBackends('<lb>'), kopsMessage.waitLb('<lb>'), kopsMessage.listServers()]) {
      expect(readme).toContain(message);
    }
  });
});
