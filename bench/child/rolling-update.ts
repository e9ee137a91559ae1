// Child process (run with `node --import tsx`): kOps' rolling update of three control planes, with kOps alone and
// with scw-lb-sync beside it (bench/support/rolling-update-world.ts). argv: <scale>. Reports over IPC.
// Its own process: the local stack sets process.env and the bundles read their environment once per process.
import { playRollingUpdate } from '../support/rolling-update-world';

const scale = Number(process.argv[2] ?? '30');

async function main(): Promise<void> {
  const kopsAlone = await playRollingUpdate({ withLbsync: false, scale, functionsFrom: 'dist' });
  const withLbsync = await playRollingUpdate({ withLbsync: true, scale, functionsFrom: 'dist' });
  const summary = (play: typeof kopsAlone) => ({
    figures: play.figures,
    workersGoneAfterApplyS: play.workersGoneAfterApplyS,
    rollingUpdateS: play.rollingUpdateS,
    windowS: play.windowS,
    finalPools: play.finalPools,
  });
  process.send?.({ scale, kopsAlone: summary(kopsAlone), withLbsync: summary(withLbsync) }, () => process.exit(0));
}

main().catch((error: unknown) => {
  console.error((error as Error)?.stack ?? String(error));
  process.exit(1);
});
