import { Command } from 'commander';
import { runtimeConfigFromEnv } from '../../shared/platform/config';
import type { ReconcileSettings } from '../../shared/reconcile/reconcile-target';
import { notStarted, reconcileSettings, reconcileTarget } from '../../shared/reconcile/reconcile-target';
import { newEventId } from '../../shared/schemas/event';
import type { Target } from '../../shared/schemas/target';
import type { ScalewayGateway } from '../../shared/adapters/scaleway';
import type { LbSyncError } from '../../shared/errors/lbsync-error';
import type { Cli } from '../command';
import { act, collect, helpText } from '../command';
import { configuredTargets, selectTargets, targetGateway } from '../environment';
import { EXIT, plural } from '../output';
import type { TargetPlanView } from '../plan-view';
import { deferredCount, planView, renderPlanView } from '../plan-view';

interface PlanOptions {
  target?: string[];
  file?: string;
}

export async function planTargets(
  targets: readonly Target[],
  gateway: (target: Target) => { gateway: ScalewayGateway } | { error: LbSyncError },
  settings: ReconcileSettings,
): Promise<TargetPlanView[]> {
  const views: TargetPlanView[] = [];
  for (const target of targets) {
    const event = { id: newEventId(), dryRun: true };
    const own = gateway(target);
    const result =
      'error' in own ? notStarted(target, event, own.error) : await reconcileTarget(target, event, { gateway: own.gateway, ...settings });
    const observed = new Map(Object.entries(result.observedBackends ?? {}).flatMap(([name, b]) => (b ? [[name, b] as const] : [])));
    views.push(planView(target, result, result.observedBackends ? observed : undefined, []));
  }
  return views;
}

export function planExitCode(views: readonly TargetPlanView[]): number {
  if (views.some((v) => v.status === 'failed')) return EXIT.error;
  return views.some((v) => v.actions.length > 0 || deferredCount(v) > 0) ? EXIT.drift : EXIT.ok;
}

export function planCommand(cli: Cli): Command {
  return new Command('plan')
    .description(
      'dry run: show, per target, the load balancer, each backend desired vs actual, and the writes a reconcile would make (never writes)',
    )
    .option('-t, --target <name>', 'only this target (repeatable, or comma-separated)', collect)
    .option('-f, --file <path>', 'targets file (instead of LBSYNC_TARGETS / LBSYNC_CONFIG)')
    .addHelpText(
      'after',
      helpText(
        [
          'lbsync plan',
          'lbsync plan --target prod.k8s.local',
          "lbsync plan -o json | jq '.targets[].actions'",
          'lbsync plan || echo "drift or error: $?"',
        ],
        [
          [0, 'every target in sync'],
          [2, 'drift: at least one target would be written to'],
          [1, 'an error (configuration, credentials, API); errors win over drift'],
          [64, 'bad flags, or a --target the configuration lacks'],
        ],
        '{ok, command: "plan", inSync, exitCode, targets: [{target, status, lb, desiredPool, backends, coverage, actions, error?}]}; a backend whose state could not be read is {name, checked: false, notChecked}; ok is false only on exit 1',
      ),
    )
    .action(
      act<PlanOptions>(cli, async (options, out) => {
        const env = cli.io.env;
        const targets = selectTargets(configuredTargets(env, options.file), options.target);
        const views = await planTargets(
          targets,
          (target) => targetGateway(env, target, cli.protect),
          reconcileSettings(runtimeConfigFromEnv(env)),
        );
        const code = planExitCode(views);
        if (out.format === 'json') {
          out.result(code !== EXIT.error, { inSync: code === EXIT.ok, exitCode: code, targets: views });
          return code;
        }
        const { c } = out;
        views.forEach((v, i) => {
          if (i > 0) out.line();
          for (const line of renderPlanView(v, c)) out.line(line);
        });
        const failed = views.filter((v) => v.status === 'failed').length;
        const drifted = views.filter((v) => v.status !== 'failed' && (v.actions.length > 0 || deferredCount(v) > 0)).length;
        const actions = views.reduce((n, v) => n + v.actions.length, 0);
        out.line();
        out.line(
          `${plural(views.length, 'target')}: ${c.green(`${views.length - failed - drifted} in sync`)}, ` +
            `${drifted > 0 ? c.yellow(`${drifted} with drift (${plural(actions, 'action')})`) : '0 with drift'}, ` +
            `${failed > 0 ? c.red(`${failed} failed`) : '0 failed'}${drifted > 0 ? c.dim('  (apply with `lbsync reconcile`)') : ''}`,
        );
        return code;
      }),
    );
}
