import { Command } from 'commander';
import { runtimeConfigFromEnv } from '../../shared/platform/config';
import type { LbPlace } from '../../shared/core/lb-identity';
import { placeLabel } from '../../shared/core/lb-identity';
import type { Action } from '../../shared/core/model';
import type { BackendRollout } from '../../shared/core/rollout';
import type { LbReconcile, ReconcileResult } from '../../shared/reconcile/reconcile-target';
import { notStarted, reconcileSettings, reconcileTarget } from '../../shared/reconcile/reconcile-target';
import { newEventId } from '../../shared/schemas/event';
import { withoutWrites } from '../../shared/adapters/scaleway';
import type { Cli } from '../command';
import { act, collect, helpText } from '../command';
import { configuredTargets, selectTargets, targetGateway } from '../environment';
import type { Colors } from '../output';
import { describeError, EXIT, plural, table } from '../output';
import { summariseAction } from '../plan-view';

interface ReconcileOptions {
  target?: string[];
  file?: string;
}

function rolloutsJson(rollouts: BackendRollout[] | undefined) {
  return (
    rollouts && {
      rollouts: rollouts.map((b) => ({
        backend: b.backend,
        removed: b.rollout.removed,
        deferred: b.rollout.deferred,
        stages: b.rollout.stages,
      })),
    }
  );
}

/** A target with several LBs: each LB's part (what a one-LB target shows at its top). */
function lbJson(part: LbReconcile) {
  return {
    loadBalancer: part.loadBalancer,
    status: part.status,
    lb: part.lb,
    done: part.done.map(summariseAction),
    planned: part.planned.map(summariseAction),
    ...rolloutsJson(part.rollouts),
    ...(part.error && { error: describeError(part.error) }),
  };
}

function resultJson(r: ReconcileResult) {
  return {
    target: r.target,
    eventId: r.eventId,
    status: r.status,
    ...(r.shadow && { mode: 'shadow' }),
    lb: r.lb,
    pool: r.pool?.ips,
    done: r.done.map(summariseAction),
    planned: r.planned.map(summariseAction),
    warnings: r.warnings,
    ...rolloutsJson(r.rollouts),
    ...(r.lbs && { lbs: r.lbs.map(lbJson) }),
    apiCalls: { reads: r.apiCalls.reads, writes: r.apiCalls.writes },
    durationMs: r.durationMs,
    ...(r.error && { error: describeError(r.error) }),
  };
}

/** The writes of a result, `kind backend` each; a target with several LBs names each write's LB. */
function writesText(r: ReconcileResult, which: 'done' | 'planned'): string {
  const parts: { actions: Action[]; on?: LbPlace }[] = r.lbs
    ? r.lbs.map((part) => ({ actions: part[which], on: part.loadBalancer }))
    : [{ actions: r[which] }];
  return parts.flatMap(({ actions, on }) => actions.map((a) => `${a.kind} ${a.backend}${on ? ` on ${placeLabel(on)}` : ''}`)).join(', ');
}

function statusText(r: ReconcileResult, c: Colors): string {
  if (r.shadow) return c.yellow(r.status === 'noop' ? 'noop (shadow)' : 'planned (shadow)');
  if (r.status === 'applied') return c.green('applied');
  if (r.status === 'noop') return c.green('noop');
  return c.red(r.status);
}

export function reconcileCommand(cli: Cli): Command {
  return new Command('reconcile')
    .description('apply now, without the queue: read, diff and write only what differs, then wait until the LB reports it applied')
    .option('-t, --target <name>', 'only this target (repeatable, or comma-separated)', collect)
    .option('-f, --file <path>', 'targets file (instead of LBSYNC_TARGETS / LBSYNC_CONFIG)')
    .addHelpText(
      'after',
      helpText(
        [
          'lbsync plan && lbsync reconcile',
          'lbsync reconcile --target prod.k8s.local',
          'LBSYNC_WAIT_BUDGET_MS=60000 lbsync reconcile -o json',
        ],
        [
          [0, 'every target applied or already in sync (noop)'],
          [
            1,
            'at least one target failed or keeps removals for later (rolling-update safety; code, message and hint are printed), or a configuration error',
          ],
          [64, 'bad flags, or a --target the configuration lacks'],
        ],
        '{ok, command: "reconcile", targets: [{target, eventId, status, lb, pool, done, planned, warnings, apiCalls, durationMs, error?, lbs?: [{loadBalancer, status, lb, done, planned, error?}]}]}; lbs: a target with several LBs, each LB\'s part',
      ),
    )
    .action(
      act<ReconcileOptions>(cli, async (options, out) => {
        const env = cli.io.env;
        const targets = selectTargets(configuredTargets(env, options.file), options.target);
        const runtime = runtimeConfigFromEnv(env);
        const settings = reconcileSettings(runtime);
        // The deployment's mode, when this shell holds its environment: a shadow deployment writes nothing, here too.
        const shadow = runtime.mode === 'shadow';
        if (shadow && out.format === 'text')
          out.note(
            out.ce.yellow('LBSYNC_MODE=shadow: planning as a write would, writing nothing (LBSYNC_MODE=write lbsync reconcile writes)'),
          );
        const results: ReconcileResult[] = [];
        for (const target of targets) {
          if (out.format === 'text' && targets.length > 1) out.note(out.ce.dim(`reconciling ${target.name}...`));
          const event = { id: newEventId() };
          const own = targetGateway(env, target, cli.protect);
          if ('error' in own) {
            results.push(notStarted(target, event, own.error));
            continue;
          }
          const { gateway } = own;
          results.push(await reconcileTarget(target, event, { gateway: shadow ? withoutWrites(gateway) : gateway, shadow, ...settings }));
        }
        // A removal held back by the rolling-update rules is not done yet: its error (and hint) is printed, exit 1.
        const ok = results.every((r) => (r.status === 'applied' || r.status === 'noop' || r.shadow) && !r.error);
        const code = ok ? EXIT.ok : EXIT.error;
        if (out.format === 'json') {
          out.result(ok, { targets: results.map(resultJson) });
          return code;
        }
        const { c } = out;
        const rows = results.map((r) => [
          c.bold(r.target),
          statusText(r, c),
          r.done.length > 0
            ? writesText(r, 'done')
            : r.shadow && r.planned.length > 0
              ? `shadow, not written: ${writesText(r, 'planned')}`
              : r.status === 'noop'
                ? 'in sync'
                : '-',
          c.dim(`${plural(r.apiCalls.reads, 'read')}, ${plural(r.apiCalls.writes, 'write')}, ${r.durationMs} ms`),
        ]);
        for (const line of table(rows)) out.line(line);
        for (const r of results) {
          for (const w of r.warnings) out.line(`${c.yellow('warning')} ${r.target}: ${w}`);
          if (r.error) {
            out.line(`${c.red('error')} ${r.target} ${c.dim(`[${r.error.code}]`)} ${r.error.message}`);
            out.line(`  ${c.dim('hint:')} ${describeError(r.error).hint}`);
            if (r.error.transient) out.line(`  ${c.dim('transient: the queue would retry it; run again later or let the sweep catch it')}`);
          }
        }
        return code;
      }),
    );
}
