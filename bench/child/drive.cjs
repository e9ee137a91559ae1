// A fresh node process that loads one function bundle and drives it: `count` events, `concurrency` at a time.
// argv: <handler path> <count> <concurrency>; env BENCH_EVENT (platform event JSON), optional BENCH_WARMUP_EVENT
// and BENCH_WARMUP_COUNT (run first, not measured). Reports CPU, wall time, peak RSS and answers over IPC.
'use strict';
const { handle } = require(process.argv[2]);
const count = Number(process.argv[3]);
const concurrency = Number(process.argv[4]);
const event = JSON.parse(process.env.BENCH_EVENT);
const warmupEvent = process.env.BENCH_WARMUP_EVENT ? JSON.parse(process.env.BENCH_WARMUP_EVENT) : event;
const warmupCount = Number(process.env.BENCH_WARMUP_COUNT ?? '0');
const context = { functionName: 'bench', memoryLimitInMb: 128 };

function vmHwmMB() {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function drive(n, ev, answers) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next += 1;
      const answer = await handle(ev, context);
      answers.push({ status: answer.statusCode, body: answer.body });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
}

(async () => {
  await drive(warmupCount, warmupEvent, []);
  const answers = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await drive(count, event, answers);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const outcomes = {};
  for (const a of answers) {
    let key = String(a.status);
    try {
      const body = JSON.parse(a.body);
      key += body.outcome ? ` ${body.outcome}` : '';
    } catch {}
    outcomes[key] = (outcomes[key] ?? 0) + 1;
  }
  process.send(
    {
      wallMs,
      cpuUserMs: cpu.user / 1000,
      cpuSystemMs: cpu.system / 1000,
      maxRssMB: process.resourceUsage().maxRSS / 1024,
      vmHwmMB: vmHwmMB(),
      memory: Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 1048576)])),
      outcomes,
      lastBody: answers.at(-1)?.body,
    },
    () => process.exit(0),
  );
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
