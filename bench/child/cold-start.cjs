// A fresh node process: require one function's handler, answer one event, report timings over IPC.
// argv: <handler path>; env BENCH_EVENT holds the platform event (JSON).
'use strict';
// The platform's runtime serves HTTP: node:http (and net, stream) is loaded before it requires a handler.
require('node:http');
const requireStart = performance.now();
const { handle, codeCache } = require(process.argv[2]);
const required = performance.now();
const event = JSON.parse(process.env.BENCH_EVENT);

handle(event, { functionName: 'bench', memoryLimitInMb: 128 }).then(
  (answer) => {
    const answered = performance.now();
    const fromNodeModules = Object.keys(require.cache).filter((p) => p.includes('node_modules'));
    process.send(
      {
        // performance.now() counts from the process' time origin, so this includes node's own start.
        answeredMs: answered,
        requireStartMs: requireStart,
        requireMs: required - requireStart,
        handleMs: answered - required,
        status: answer.statusCode,
        body: answer.body,
        nodeModulesLoaded: fromNodeModules.length,
        sqsInRequireCache: fromNodeModules.some((p) => p.includes('@aws-sdk')),
        sqsMarker: globalThis.__lbsyncBenchSqsLoaded === true,
        codeCache: codeCache ?? 'none',
        maxRssMB: process.resourceUsage().maxRSS / 1024,
      },
      () => process.exit(0),
    );
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
