// The figures the reconcile function's final line carries about the pool (shared/platform/log-schema.ts): its
// members after the answer, how many pass the LB's health checks, and what was added, removed or deferred.
import type { Action } from './model';
import type { BackendRollout } from './rollout';

export interface AnswerFiguresInput {
  /** The target's backends as read, by name (null: missing). */
  observedBackends?: Readonly<Record<string, { pool: readonly string[] } | null>>;
  /** The writes made (or, in a dry run, the writes it would make). */
  writes: readonly Action[];
  rollouts?: readonly BackendRollout[];
  /** Every health read of this reconcile, per backend (the rollouts' and the others'); default: the rollouts'. */
  health?: readonly { health: Readonly<Record<string, { condition: string }>> }[];
  /** The desired pool's size (discovery), from which the passing members needed are counted. */
  desiredSize?: number;
  /** A dry run leaves the pool as it was read. */
  dryRun: boolean;
}

export interface AnswerFigures {
  /** Distinct members of the target's backends after the answer; undefined when the backends were not read. */
  poolSize?: number;
  /** Of those, the ones every health read of this reconcile saw passing; undefined when it read none. */
  poolPassing?: number;
  /** With poolPassing: the passing members the target needs, a majority of its desired pool (2 of 3 control planes). */
  poolNeeded?: number;
  /** With poolPassing: how many passing members it lacks (0 when it has enough). */
  poolShort?: number;
  added: number;
  removed: number;
  deferred: number;
}

/** Each backend's pool once the writes are made: a create or pool write replaces it. */
function poolsAfter(input: AnswerFiguresInput): Map<string, readonly string[]> {
  const pools = new Map<string, readonly string[]>();
  for (const [name, backend] of Object.entries(input.observedBackends ?? {})) if (backend) pools.set(name, backend.pool);
  if (input.dryRun) return pools;
  for (const action of input.writes) {
    if (action.kind === 'CreateBackend' || action.kind === 'SetBackendServers') pools.set(action.backend, action.pool);
  }
  return pools;
}

/** Per address, whether every health read of it says passing (only the addresses some read reports). */
function passingByIp(reads: readonly { health: Readonly<Record<string, { condition: string }>> }[]): Map<string, boolean> {
  const passing = new Map<string, boolean>();
  for (const { health } of reads) {
    for (const [ip, view] of Object.entries(health)) passing.set(ip, (passing.get(ip) ?? true) && view.condition === 'passing');
  }
  return passing;
}

export function answerFigures(input: AnswerFiguresInput): AnswerFigures {
  const added = new Set<string>();
  const removed = new Set<string>();
  for (const action of input.writes) {
    if (action.kind === 'CreateBackend') for (const ip of action.pool) added.add(ip);
    if (action.kind === 'SetBackendServers') {
      for (const ip of action.added) added.add(ip);
      for (const ip of action.removed) removed.add(ip);
    }
  }
  const deferred = new Set((input.rollouts ?? []).flatMap((r) => r.rollout.deferred.map((d) => d.ip)));
  const figures: AnswerFigures = { added: added.size, removed: removed.size, deferred: deferred.size };
  if (input.observedBackends === undefined) return figures;
  const members = new Set([...poolsAfter(input).values()].flat());
  figures.poolSize = members.size;
  const passing = passingByIp(input.health ?? input.rollouts ?? []);
  if (passing.size > 0) {
    figures.poolPassing = [...members].filter((ip) => passing.get(ip) === true).length;
    if (input.desiredSize !== undefined && input.desiredSize > 0) {
      figures.poolNeeded = neededPassing(input.desiredSize);
      figures.poolShort = Math.max(0, figures.poolNeeded - figures.poolPassing);
    }
  }
  return figures;
}

/**
 * The passing members a target needs: a majority of its desired pool. For an API endpoint in front of etcd-backed
 * control planes that is the quorum (2 of 3): below it the API is one failure from down.
 */
export function neededPassing(desiredSize: number): number {
  return Math.floor(desiredSize / 2) + 1;
}

type PoolFigures = Pick<AnswerFigures, 'poolSize' | 'poolPassing' | 'poolNeeded' | 'poolShort'>;

/**
 * A target with several LBs takes the pool figures of its worst-off LB: the most passing members short, then the
 * fewest passing, then the smallest pool. A quorum alert must fire when any of its LBs is short.
 */
export function worstPool(perLb: readonly AnswerFigures[]): PoolFigures {
  const read = perLb.filter((f) => f.poolSize !== undefined);
  const rank = (f: AnswerFigures) => [-(f.poolShort ?? -1), f.poolPassing ?? Number.POSITIVE_INFINITY, f.poolSize as number];
  const [worst] = [...read].sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    return (ra[0] as number) - (rb[0] as number) || (ra[1] as number) - (rb[1] as number) || (ra[2] as number) - (rb[2] as number);
  });
  if (!worst) return {};
  const { poolSize, poolPassing, poolNeeded, poolShort } = worst;
  return {
    ...(poolSize !== undefined && { poolSize }),
    ...(poolPassing !== undefined && { poolPassing }),
    ...(poolNeeded !== undefined && { poolNeeded }),
    ...(poolShort !== undefined && { poolShort }),
  };
}
