import type { BackendRollout } from './rollout';

/** One log line per address a rollout removes now or keeps for now, with why (the reconcile log and doctor). */
export function describeRollout({ backend, rollout }: BackendRollout): string[] {
  return [
    ...rollout.removed.map((r) => `rollout ${backend}: remove ${r.ip} now: ${r.why}`),
    ...rollout.deferred.map((d) => `rollout ${backend}: keep ${d.ip} for now: ${d.why}`),
  ];
}

/** The staged writes, one line each: "now: [pool] +a -b", then "once ...: [pool] -c". */
export function describeStages({ rollout }: BackendRollout): string[] {
  return rollout.stages.map((s) => {
    const change = [...s.added.map((ip) => `+${ip}`), ...s.removed.map((ip) => `-${ip}`)].join(' ');
    return `${s.when}: ${change} -> [${s.pool.join(', ')}]`;
  });
}
