// `npm run docs`: writes the parts of docs/ generated from the code: the configuration reference (from the
// schemas), the troubleshooting page (from the error catalog and its guide) and the emulator's fault reference
// (from its types and routes). test/unit/docs.test.ts fails when any of them is stale.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { withReference } from './config-reference';
import { withFaultReference } from './emulator-reference';
import { renderTroubleshooting } from './troubleshooting-page';

const at = (path: string) => new URL(`../${path}`, import.meta.url);
const current = (path: string) => readFileSync(at(path), 'utf8');

/** Each generated file, with what it should hold now. */
export const GENERATED = {
  'docs/configuration.md': () => withReference(current('docs/configuration.md')),
  'docs/troubleshooting.md': () => renderTroubleshooting(),
  'docs/emulator.md': () => withFaultReference(current('docs/emulator.md')),
} as const;

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  for (const [path, render] of Object.entries(GENERATED)) {
    const text = render();
    if (existsSync(at(path)) && current(path) === text) continue;
    writeFileSync(at(path), text);
    process.stdout.write(`wrote ${path}\n`);
  }
}
