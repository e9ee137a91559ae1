// cockpit/dashboard.json from cockpit/queries.ts, typed by Grafana's published schema (@grafana/schema: the
// dashboard, its variables and panels, and each panel plugin's options), so `npm run typecheck` refuses a field
// Grafana does not have. Its Loki data source is a dashboard variable: import it into any Grafana, pick the logs
// data source that holds the functions' logs.
import type { DataQuery, DataSourceRef, Dashboard, FieldConfigSource, Panel, VariableModel } from '@grafana/schema';
import {
  BigValueColorMode,
  BigValueGraphMode,
  BigValueJustifyMode,
  BigValueTextMode,
  GraphDrawStyle,
  LegendDisplayMode,
  LogsDedupStrategy,
  LogsSortOrder,
  PercentChangeColorMode,
  SortOrder,
  StackingMode,
  TooltipDisplayMode,
  VariableHide,
  VizOrientation,
} from '@grafana/schema';
import type { Options as LogsOptions } from '@grafana/schema/dist/esm/raw/composable/logs/panelcfg/x/LogsPanelCfg_types.gen';
import type { Options as StatOptions } from '@grafana/schema/dist/esm/raw/composable/stat/panelcfg/x/StatPanelCfg_types.gen';
import type {
  FieldConfig as TimeSeriesFieldConfig,
  Options as TimeSeriesOptions,
} from '@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen';
import type { PanelQuery, PanelSpec } from './queries';
import { DASHBOARD_VARIABLES, PANELS } from './queries';
import { FUNCTIONS } from '../functions/registry';
import { DASHBOARD_UID, selector } from './settings';

/** The Loki query of a panel, as Grafana's Loki data source stores it (DataQuery plus its own fields). */
interface LokiQuery extends DataQuery {
  expr: string;
  legendFormat?: string;
  queryType: 'range' | 'instant';
  editorMode: 'code';
}

const DATASOURCE_VARIABLE = 'datasource';
const METRICS_VARIABLE = 'metrics';
const LOGS: DataSourceRef = { type: 'loki', uid: `\${${DATASOURCE_VARIABLE}}` };
const METRICS: DataSourceRef = { type: 'prometheus', uid: `\${${METRICS_VARIABLE}}` };
const sourceOf = (spec: PanelSpec): DataSourceRef => (spec.source === 'metrics' ? METRICS : LOGS);
/** Grafana's grid is 24 units wide. */
const GRID_WIDTH = 24;
const PANEL_HEIGHT = 8;

const datasourceVariable: VariableModel = {
  type: 'datasource',
  name: DATASOURCE_VARIABLE,
  label: 'Logs data source',
  description: "Cockpit's logs data source that holds the functions' logs (type logs, origin scaleway).",
  query: 'loki',
  hide: VariableHide.dontHide,
};

const metricsVariable: VariableModel = {
  type: 'datasource',
  name: METRICS_VARIABLE,
  label: 'Metrics data source',
  description: "Cockpit's metrics data source of origin Scaleway (Scaleway Metrics): the Functions metrics panel reads it.",
  query: 'prometheus',
  hide: VariableHide.dontHide,
};

/**
 * The targets to show: a list of their names (several may be picked; All by default). The shipped file lists none
 * (All only); `lbsync cockpit install` lists the configured targets' names (withTargets).
 */
function targetVariable(names: readonly string[] = []): VariableModel {
  return {
    type: 'custom',
    name: DASHBOARD_VARIABLES.target.slice(1),
    label: 'Target',
    description: 'The targets to show (the configured targets, as `lbsync cockpit install` found them).',
    query: names.join(','),
    options: names.map((name) => ({ text: name, value: name, selected: false })),
    multi: true,
    includeAll: true,
    allValue: '.*',
    current: { text: 'All', value: '$__all' },
    hide: VariableHide.dontHide,
  };
}

/**
 * A panel plugin's options or custom field config, checked against its own type where it is declared, as the
 * dashboard schema holds it (an open record: the schema leaves the options to each plugin).
 */
const pluginRecord = <T extends object>(value: T): T & Record<string, unknown> => value as T & Record<string, unknown>;

function targets(queries: readonly PanelQuery[], source: DataSourceRef): LokiQuery[] {
  return queries.map((query, index) => ({
    refId: String.fromCharCode(65 + index),
    datasource: source,
    expr: query.expr,
    ...(query.legend && { legendFormat: query.legend }),
    queryType: query.instant ? 'instant' : 'range',
    editorMode: 'code',
  }));
}

function timeseries(spec: PanelSpec): Pick<Panel, 'options' | 'fieldConfig'> {
  const options: TimeSeriesOptions = {
    legend: { showLegend: true, displayMode: LegendDisplayMode.List, placement: 'bottom', calcs: [] },
    tooltip: { mode: TooltipDisplayMode.Multi, sort: SortOrder.Descending },
  };
  const custom: TimeSeriesFieldConfig = spec.bars
    ? { drawStyle: GraphDrawStyle.Bars, fillOpacity: 80, lineWidth: 1, stacking: { mode: StackingMode.Normal, group: 'A' } }
    : { drawStyle: GraphDrawStyle.Line, fillOpacity: 0, lineWidth: 1, spanNulls: true };
  const fieldConfig: FieldConfigSource = {
    defaults: { custom: pluginRecord(custom), ...(spec.unit && { unit: spec.unit }) },
    overrides: [],
  };
  return { options: pluginRecord(options), fieldConfig };
}

function stat(spec: PanelSpec): Pick<Panel, 'options' | 'fieldConfig'> {
  const options: StatOptions = {
    reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
    orientation: VizOrientation.Auto,
    textMode: BigValueTextMode.ValueAndName,
    colorMode: BigValueColorMode.None,
    graphMode: BigValueGraphMode.None,
    justifyMode: BigValueJustifyMode.Auto,
    percentChangeColorMode: PercentChangeColorMode.Standard,
    showPercentChange: false,
    wideLayout: true,
  };
  return { options: pluginRecord(options), fieldConfig: { defaults: { ...(spec.unit && { unit: spec.unit }) }, overrides: [] } };
}

function logs(): Pick<Panel, 'options'> {
  const options: LogsOptions = {
    dedupStrategy: LogsDedupStrategy.none,
    enableLogDetails: true,
    prettifyLogMessage: false,
    showCommonLabels: false,
    showLabels: false,
    showLogContextToggle: true,
    showTime: true,
    sortOrder: LogsSortOrder.Descending,
    wrapLogMessage: true,
  };
  return { options: pluginRecord(options) };
}

const visuals: Record<PanelSpec['kind'], (spec: PanelSpec) => Pick<Panel, 'options' | 'fieldConfig'>> = { timeseries, stat, logs };

/** Two panels a row; the logs panel, last, the whole width. */
function panel(spec: PanelSpec, index: number): Panel {
  const wide = spec.kind === 'logs';
  const width = wide ? GRID_WIDTH : GRID_WIDTH / 2;
  return {
    id: index + 1,
    type: spec.kind,
    title: spec.title,
    description: spec.description,
    datasource: sourceOf(spec),
    gridPos: {
      h: wide ? 2 * PANEL_HEIGHT : PANEL_HEIGHT,
      w: width,
      x: wide ? 0 : (index % 2) * width,
      y: Math.floor(index / 2) * PANEL_HEIGHT,
    },
    targets: targets(spec.queries, sourceOf(spec)) as unknown as Record<string, unknown>[],
    ...visuals[spec.kind](spec),
  };
}

export function dashboard(): Dashboard {
  return {
    uid: DASHBOARD_UID,
    title: 'scw-lb-sync',
    description: `Load-balancer backends kept in step by scw-lb-sync: reconcile outcomes, convergence, retries, dead letters, heartbeats. Reads the functions' JSON log lines (${selector(FUNCTIONS)}). Generated by npm run cockpit from cockpit/queries.ts.`,
    tags: ['scw-lb-sync', 'load-balancer', 'serverless'],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    time: { from: 'now-6h', to: 'now' },
    refresh: '1m',
    templating: { list: [datasourceVariable, metricsVariable, targetVariable()] },
    panels: PANELS.map(panel),
  };
}

/** The dashboard with the target variable listing these names (the deployment's targets). Pure: the file is not touched. */
export function withTargets<D extends Record<string, unknown>>(shipped: D, names: readonly string[]): D {
  const templating = (shipped.templating ?? {}) as { list?: unknown[] };
  const list = (templating.list ?? []).map((variable) =>
    (variable as VariableModel).name === DASHBOARD_VARIABLES.target.slice(1) ? targetVariable(names) : variable,
  );
  return { ...shipped, templating: { ...templating, list } };
}

/** The file as written: two-space JSON, one trailing newline. */
export function dashboardJson(): string {
  return `${JSON.stringify(dashboard(), null, 2)}\n`;
}
