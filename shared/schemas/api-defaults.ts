// The LB API's own defaults that both a target and the planner rely on. Pure data, so core may load it
// (test/unit/core/purity.test.ts checks it by core's rule).

/**
 * The health-check timings the LB API gives a backend it creates. kOps meant to send them, but sends 0 ms because of
 * a units mistake. The planner sends them on a create, and the kOps shorthand names them, so a reconcile corrects
 * kOps' values.
 */
export const DEFAULT_HEALTH_CHECK = { checkDelayMs: 3000, checkTimeoutMs: 1000, checkMaxRetries: 5 } as const;
