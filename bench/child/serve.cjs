// One function instance as the platform runs it: a fresh node process serving one handler over HTTP with
// Scaleway's own runtime emulation (@scaleway/serverless-functions, as the local stack does), one request
// at a time. argv: <handler path | "none" for the serving alone>. Talks to the bench over IPC:
//   -> { kind: 'ready', port, memory }        once listening (memory after node + serving + require)
//   <- 'memory'  -> { kind: 'memory', memory } (taken whenever asked, e.g. after the first event)
//   <- 'exit'
// Memory figures come from /proc/self/status (VmHWM = peak RSS) and V8, so the bench can tell the causes apart.
'use strict';
const { readFileSync } = require('node:fs');
const v8 = require('node:v8');

const bootMemory = memory();
const { serveHandler } = require('@scaleway/serverless-functions');
const servingMemory = memory();
const target = process.argv[2];
const handle = target === 'none' ? async () => ({ statusCode: 200, headers: {}, body: '{}' }) : require(target).handle;

function status() {
  const fields = {};
  try {
    for (const line of readFileSync('/proc/self/status', 'utf8').split('\n')) {
      const match = /^(VmHWM|VmRSS|RssAnon|RssFile|RssShmem):\s+(\d+) kB/.exec(line);
      if (match) fields[match[1]] = Number(match[2]) / 1024;
    }
  } catch {
    // Not Linux: fall back to what node reports.
  }
  return fields;
}

function memory() {
  const s = status();
  // With --expose-gc (leak checks only): what survives a full collection.
  let liveHeapMB;
  if (typeof globalThis.gc === 'function') {
    globalThis.gc();
    liveHeapMB = process.memoryUsage().heapUsed / 1048576;
  }
  const usage = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size / 1048576]));
  const heap = v8.getHeapStatistics();
  return {
    peakMB: s.VmHWM ?? process.resourceUsage().maxRSS / 1024,
    rssMB: s.VmRSS ?? usage.rss / 1048576,
    rssAnonMB: s.RssAnon,
    rssFileMB: s.RssFile,
    heapTotalMB: usage.heapTotal / 1048576,
    heapUsedMB: usage.heapUsed / 1048576,
    externalMB: usage.external / 1048576,
    arrayBuffersMB: usage.arrayBuffers / 1048576,
    codeSpaceMB: spaces.code_space ?? 0,
    newSpaceMB: spaces.new_space ?? 0,
    oldSpaceMB: spaces.old_space ?? 0,
    mallocedMB: heap.malloced_memory / 1048576,
    peakMallocedMB: heap.peak_malloced_memory / 1048576,
    ...(liveHeapMB !== undefined && { liveHeapMB }),
    cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  };
}

const app = serveHandler(handle, 0);
app.ready().then(
  () => {
    const reply = () =>
      process.send({ kind: 'ready', port: app.server.address().port, boot: bootMemory, serving: servingMemory, memory: memory() });
    if (app.server.listening) reply();
    else app.server.once('listening', reply);
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

process.on('message', (message) => {
  if (message === 'memory') process.send({ kind: 'memory', memory: memory() });
  if (message === 'exit') app.close().then(() => process.exit(0));
});
