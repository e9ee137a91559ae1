// The two cron triggers (sweep, watch) read their args one way (shared/handlers/cron-args.ts): the same keys
// checked the same way, and the same selection of targets, an unknown name skipped with one warning line.
// Nothing here may touch the queue or Audit Trail: the args decide before anything is read or sent.
import { describe, expect, it } from 'vitest';
import { LBSYNC_USER_AGENT_MARKER } from '../../../shared/outbound/user-agent';
import { handleSweepRequest } from '../../../shared/handlers/sweep-request';
import { handleWatchRequest } from '../../../shared/handlers/watch-request';
import { createLogger } from '../../../shared/platform/log';
import type { PlatformResponse } from '../../../shared/platform/request-response';
import { parseTargets } from '../../../shared/schemas/target';

const targets = parseTargets([{ kops: { cluster: 'prod.k8s.local', zone: 'fr-par-1' } }]);
const untouchable = (what: string) => () => {
  throw new Error(`${what} must not be reached`);
};

function capturing() {
  const lines: string[] = [];
  const logger = createLogger({ service: 'test', destination: { write: (line: string) => void lines.push(line) } });
  return { lines: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>), logger };
}

const TRIGGERS: Record<string, (body: string, logger: ReturnType<typeof createLogger>) => Promise<PlatformResponse>> = {
  sweep: (body, logger) => handleSweepRequest(body, { targets, queue: untouchable('the queue'), reconcileQueueUrl: 'unused', logger }),
  watch: (body, logger) =>
    handleWatchRequest(body, {
      targets,
      auditTrail: untouchable('Audit Trail'),
      organizationId: '23b8c1e9-3924-46de-beb1-3b9046685257',
      queue: untouchable('the queue'),
      reconcileQueueUrl: 'unused',
      window: { periodMs: 60_000, overlapMs: 120_000 },
      own: { userAgentMarker: LBSYNC_USER_AGENT_MARKER, principalIds: new Set() },
      logger,
    }),
};

describe.each(Object.keys(TRIGGERS))('the %s cron trigger', (name) => {
  const trigger = TRIGGERS[name] as (typeof TRIGGERS)[string];

  it.each([
    ['an unknown key', '{"target":"prod.k8s.local"}', 'args'],
    ['targets not a list', '{"targets":"prod.k8s.local"}', 'args.targets'],
    ['a target name no target could have', '{"targets":["Not A Name!"]}', 'args.targets[0]'],
    ['dryRun not a boolean', '{"dryRun":"yes"}', 'args.dryRun'],
    ['invalid JSON', '{"targets":', 'args'],
  ])('refuses %s with a 400 naming the field', async (_label, body, path) => {
    const answer = await trigger(body, capturing().logger);
    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_args', errors: [expect.objectContaining({ path })] });
  });

  it('skips a target name the configuration lacks, with one warning naming it, and selects nothing else', async () => {
    const { lines, logger } = capturing();
    const answer = await trigger('{"targets":["ghost.k8s.local"]}', logger);
    expect(answer.statusCode).toBe(200);
    expect(lines().filter((l) => l.level === 'WARN')).toEqual([
      expect.objectContaining({ target: 'ghost.k8s.local', message: `${name} args name an unknown target "ghost.k8s.local"` }),
    ]);
  });
});
