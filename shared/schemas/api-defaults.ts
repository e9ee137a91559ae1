// The LB API's own defaults that both a target and the planner rely on. Pure data, so core may load it
// (test/unit/core/purity.test.ts holds it to core's rule).

/**
 * The health-check timings the LB API gives a backend it creates, which kOps meant to send (it sends 0 ms by a
 * units slip): the planner sends them on a create, and the kOps shorthand names them so a reconcile corrects kOps'.
 */
export const DEFAULT_HEALTH_CHECK = { checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 } as const;
