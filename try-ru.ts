import { playRollingUpdate } from './bench/support/rolling-update-world';
const play = await playRollingUpdate({ withLbsync: true, scale: Number(process.argv[2] ?? 150) });
console.log(JSON.stringify(play.figures));
const t0 = play.history[0]?.at ?? 0;
for (const w of play.history)
  console.log(w.at - t0, w.operation, (w.userAgent ?? '').slice(0, 30), w.poolBefore.join(','), '->', w.pool.join(','));
for (const s of play.kops.steps) console.log(s.at - t0, JSON.stringify(s).slice(0, 150));
process.exit(0);
