// `npm run cockpit`: writes cockpit/dashboard.json, cockpit/alerts.yaml and their section of docs/operations.md
// from cockpit/queries.ts. Tests fail when any of the three is stale (test/unit/cockpit/generated.test.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { alertsYaml } from '../cockpit/alerts';
import { dashboardJson } from '../cockpit/dashboard';
import { withCockpitSection } from '../cockpit/doc-section';
import { metricQueryProblems, queryProblems } from '../cockpit/logql-check';
import { ALERTS, FUNCTION_METRICS, PANELS } from '../cockpit/queries';

const at = (path: string) => new URL(`../${path}`, import.meta.url);

export const GENERATED = {
  'cockpit/dashboard.json': () => dashboardJson(),
  'cockpit/alerts.yaml': () => alertsYaml(),
  'docs/operations.md': () => withCockpitSection(readFileSync(at('docs/operations.md'), 'utf8')),
} as const;

/** Every query with what Grafana's grammar and the log schema find wrong in it. */
export function problems(): string[] {
  const queries = [
    ...ALERTS.map((a) => ({ name: `alert ${a.alert}`, expr: a.expr })),
    ...PANELS.flatMap((p) => p.queries.map((q) => ({ name: `panel "${p.title}"`, expr: q.expr, metrics: p.source === 'metrics' }))),
  ];
  return queries.flatMap(({ name, expr, ...rest }) =>
    ('metrics' in rest && rest.metrics ? metricQueryProblems(expr, FUNCTION_METRICS) : queryProblems(expr)).map(
      (problem) => `${name}: ${problem}`,
    ),
  );
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const found = problems();
  if (found.length > 0) {
    process.stderr.write(`cockpit/queries.ts has queries Cockpit would not read right; nothing written:\n  ${found.join('\n  ')}\n`);
    process.exit(1);
  }
  for (const [path, render] of Object.entries(GENERATED)) {
    const text = render();
    if (existsSync(at(path)) && readFileSync(at(path), 'utf8') === text) continue;
    writeFileSync(at(path), text);
    process.stdout.write(`wrote ${path}\n`);
  }
}
