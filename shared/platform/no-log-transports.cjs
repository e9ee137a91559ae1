'use strict';
// Bundled in place of thread-stream (scripts/build.mjs): pino's worker-thread transports. The logger
// (shared/platform/log.ts) writes to a stream in its own thread, so no transport is ever started.
module.exports = class NoLogTransports {
  constructor() {
    throw new Error('pino transports are not bundled: shared/platform/log.ts writes to a stream in this thread');
  }
};
