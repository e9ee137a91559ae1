// Other writers of a target's pools, from Audit Trail. Pure.
// - Every backend write on a target's backend by anyone but this deployment is a foreign write, named by its writer
//   (core/writers.ts).
// - If scw-lb-sync keeps reverting the same writer on one target, the pool is contested: a foreign write followed
//   by one of ours on the same backend, three times within 30 minutes. The warning (`pool_contested`) names the
//   writer and says what to do.
// kOps' own apply writes the workers in (and on_marked_down_action back to none) on every `kops update cluster` and
// rolling update, and scw-lb-sync writes them back. That contest is expected. Two scw-lb-sync deployments, or a
// Terraform-managed pool, must be untangled.
import type { Target } from '../schemas/target';
import type { WarningCode } from '../errors/lbsync-error';
import type { AuditEvent, OwnIdentity } from './audit-relevance';
import { BACKEND_METHODS, isOwn, targetsOfBackend } from './audit-relevance';
import { inTargetProject } from './target-accounts';
import type { WriterKind } from './writers';
import { writerOf } from './writers';

/** A flap: scw-lb-sync reverted the same writer this many times on one target... */
export const CONTEST_THRESHOLD = 3;
/** ... within this long. */
export const CONTEST_WINDOW_MS = 30 * 60_000;

export interface ForeignWrite {
  target: string;
  method: string;
  userAgent: string;
  /** recorded_at of the call. */
  at: string;
  /** Who, as an operator reads it (`kOps 1.37.0`, `another scw-lb-sync deployment (owner prod-par)`). */
  writer: string;
  writerKind: WriterKind;
  principalId?: string;
  backend?: string;
  lbId?: string;
}

export interface Contest {
  target: string;
  writer: string;
  writerKind: WriterKind;
  /** The other deployment's owner id, when the writer is another scw-lb-sync. */
  owner?: string;
  userAgent: string;
  /** Foreign writes of this writer on the target that a write of ours followed, within the window. */
  reverts: number;
  windowMinutes: number;
}

export interface ContestOptions {
  own: OwnIdentity;
  /** The deployment's project, where a target naming none lives (a target's own projectId wins); undefined: any. */
  projectId?: string;
}

interface BackendWrite {
  event: AuditEvent;
  backendId: string;
  targets: Target[];
  own: boolean;
}

/** The successful backend writes of the events that concern a target, oldest first, each told ours or not. */
function backendWrites(events: readonly AuditEvent[], targets: readonly Target[], options: ContestOptions): BackendWrite[] {
  const writes: BackendWrite[] = [];
  const ordered = [...events].sort((a, b) => (a.recordedAt < b.recordedAt ? -1 : a.recordedAt > b.recordedAt ? 1 : 0));
  for (const event of ordered) {
    if (event.statusCode < 200 || event.statusCode > 299 || !BACKEND_METHODS.has(event.methodName)) continue;
    const backend = event.resources.find((r) => r.type === 'load_balancer_backend');
    if (!backend) continue;
    const concerned = targetsOfBackend(
      backend,
      event.locality,
      targets.filter((t) => inTargetProject(t, event.projectId, options.projectId)),
    );
    if (concerned.length > 0) writes.push({ event, backendId: backend.id, targets: concerned, own: isOwn(event, options.own) });
  }
  return writes;
}

/** Every backend write on a target's backend by anyone but this deployment, one per target it concerns. */
export function foreignWrites(events: readonly AuditEvent[], targets: readonly Target[], options: ContestOptions): ForeignWrite[] {
  return backendWrites(events, targets, options)
    .filter((w) => !w.own)
    .flatMap(({ event, targets: concerned }) => {
      const writer = writerOf(event.userAgent);
      const backend = event.resources.find((r) => r.type === 'load_balancer_backend');
      return concerned.map(
        (t): ForeignWrite => ({
          target: t.name,
          method: event.methodName,
          userAgent: event.userAgent ?? '',
          at: event.recordedAt,
          writer: writer.name,
          writerKind: writer.kind,
          ...(event.principalId && { principalId: event.principalId }),
          ...(backend?.name && { backend: backend.name }),
          ...(backend?.lbId && { lbId: backend.lbId }),
        }),
      );
    });
}

/**
 * The contests in the events, which cover a window of at least CONTEST_WINDOW_MS ending `now`. Per target and writer,
 * it counts the foreign writes that a write of ours followed on the same backend. A count of CONTEST_THRESHOLD or
 * more is a contest.
 */
export function contests(events: readonly AuditEvent[], targets: readonly Target[], options: ContestOptions, now: number): Contest[] {
  const since = now - CONTEST_WINDOW_MS;
  const pending = new Map<string, AuditEvent>(); // target/backend -> the last foreign write not yet reverted
  const counted = new Map<string, Contest>();
  for (const write of backendWrites(events, targets, options)) {
    if (Date.parse(write.event.recordedAt) < since) continue;
    for (const target of write.targets) {
      const key = `${target.name}/${write.backendId}`;
      if (!write.own) {
        pending.set(key, write.event);
        continue;
      }
      const reverted = pending.get(key);
      if (!reverted) continue;
      pending.delete(key);
      const writer = writerOf(reverted.userAgent);
      const id = `${target.name}/${writer.kind}/${writer.name}`;
      const contest = counted.get(id) ?? {
        target: target.name,
        writer: writer.name,
        writerKind: writer.kind,
        ...(writer.owner && { owner: writer.owner }),
        userAgent: reverted.userAgent ?? '',
        reverts: 0,
        windowMinutes: CONTEST_WINDOW_MS / 60_000,
      };
      contest.reverts += 1;
      counted.set(id, contest);
    }
  }
  return [...counted.values()].filter((c) => c.reverts >= CONTEST_THRESHOLD);
}

const ADVICE: Record<WriterKind, string> = {
  kops: "expected: kOps' apply (every `kops update cluster` and rolling update) writes its own pool, workers included, and its own backend settings (on_marked_down_action back to none); scw-lb-sync takes the workers out and writes back the backend fields the target names: the pool converges, those fields are rewritten after each kOps apply (docs/kops-parity.md, section 3)",
  lbsync:
    'two scw-lb-sync deployments manage this target and undo each other: keep the target in one of them (compare their LBSYNC_TARGETS and LBSYNC_OWNER_ID)',
  terraform:
    "a Terraform-managed pool: Terraform writes its server_ips back on every apply; keep the backend's servers out of Terraform (lifecycle ignore_changes = [server_ips]) or the target out of scw-lb-sync",
  ccm: 'the cloud-controller-manager manages this backend (a Service of type LoadBalancer): keep the target out of scw-lb-sync, or the backend out of the CCM',
  cli: 'someone sets this pool by hand with the Scaleway CLI: stop, or take the target out of scw-lb-sync while doing so',
  console: 'someone edits this pool in the console: stop, or take the target out of scw-lb-sync while doing so',
  sdk: 'a script or tool writes this pool: find it by its principal in Audit Trail, and keep one writer',
  unknown: 'find the writer by its principal in Audit Trail, and keep one writer',
};

/** The warning of a contest: its code, the writer, how often, and what to do. */
export function contestWarning(
  c: Pick<Contest, 'target' | 'writer' | 'writerKind' | 'reverts' | 'windowMinutes' | 'owner'>,
  ownerId?: string,
): string {
  const code: WarningCode = 'pool_contested';
  const deployments = c.writerKind === 'lbsync' && c.owner && ownerId ? ` (owners ${c.owner} and ours, ${ownerId})` : '';
  return `[${code}] target ${c.target}: scw-lb-sync reverted ${c.writer}${deployments} ${c.reverts} times in the last ${c.windowMinutes} minutes: ${ADVICE[c.writerKind]}`;
}
