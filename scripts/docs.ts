// `npm run docs`: writes the parts of the docs generated from the code: the configuration and environment references
// (from the schemas and the environment catalogue, into whichever doc holds their markers), the troubleshooting page
// (from the error catalog and its guide) and the emulator's fault reference (from its types and routes).
// test/unit/docs.test.ts fails when any of them is stale.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { docFiles, markers, SECTIONS, sectionsIn, withReference } from './config-reference';
import { withFaultReference } from './emulator-reference';
import { renderTroubleshooting } from './troubleshooting-page';

const at = (path: string) => new URL(`../${path}`, import.meta.url);
const current = (path: string) => readFileSync(at(path), 'utf8');

/** Each generated file, with what it should hold now. */
export function generated(): Record<string, () => string> {
  const withSections = docFiles().filter((file) => sectionsIn(current(file)).length > 0);
  return {
    ...Object.fromEntries(withSections.map((file) => [file, () => withReference(current(file))])),
    'docs/troubleshooting.md': () => renderTroubleshooting(),
    'docs/emulator.md': () => withFaultReference(current('docs/emulator.md')),
  };
}

/** The configuration sections no doc holds the markers of (each must live somewhere). */
export function homelessSections(): string[] {
  const held = new Set(docFiles().flatMap((file) => sectionsIn(current(file))));
  return Object.keys(SECTIONS).filter((section) => !held.has(section));
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  for (const [path, render] of Object.entries(generated())) {
    const text = render();
    if (existsSync(at(path)) && current(path) === text) continue;
    writeFileSync(at(path), text);
    process.stdout.write(`wrote ${path}\n`);
  }
  const homeless = homelessSections();
  if (homeless.length > 0) {
    process.stderr.write(`no doc holds the markers of ${homeless.join(', ')}: add ${homeless.map((s) => markers(s).start).join(', ')}\n`);
    process.exitCode = 1;
  }
}
