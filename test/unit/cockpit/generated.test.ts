// cockpit/dashboard.json, cockpit/alerts.yaml and the Cockpit section of docs/operations.md are what
// `npm run cockpit` writes from cockpit/queries.ts: run it if this fails. The queries it refuses, it refuses.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { START } from '../../../cockpit/doc-section';
import { GENERATED, problems } from '../../../scripts/cockpit';

describe('npm run cockpit', () => {
  it.each(Object.keys(GENERATED))('%s is up to date', (path) => {
    const render = GENERATED[path as keyof typeof GENERATED];
    expect(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8')).toBe(render());
  });

  it('the guide shows each alert and panel query as it ships', () => {
    const guide = readFileSync(new URL('../../../docs/operations.md', import.meta.url), 'utf8');
    const section = guide.slice(guide.indexOf(START));
    const alerts = readFileSync(new URL('../../../cockpit/alerts.yaml', import.meta.url), 'utf8');
    const shipped = [...alerts.matchAll(/^\s+expr: (.*)$/gm)].map((m) => m[1] as string);
    expect(shipped.length).toBeGreaterThan(5);
    for (const expr of shipped) expect(section).toContain(`\`\`\`logql\n${expr}\n\`\`\``);
  });

  it('finds no problem in the queries of cockpit/queries.ts', () => {
    expect(problems()).toEqual([]);
  });
});
