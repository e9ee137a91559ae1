import type { LocalStack, LocalStackOptions } from '../../local/stack';
import { startLocalStack } from '../../local/stack';
import { DEMO_CLUSTER, demoSeed } from './world';

/** The local stack with the demo kOps cluster as its one target, the functions from source, logs silent. */
export function startDemoStack(options: Partial<LocalStackOptions> = {}): Promise<LocalStack> {
  return startLocalStack({
    seed: demoSeed(),
    targets: [{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }],
    functionsFrom: 'source',
    ...options,
    env: { LOG_LEVEL: 'silent', ...options.env },
  });
}
