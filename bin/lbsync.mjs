#!/usr/bin/env node
// The `lbsync` command: runs the CLI bundle `npm run build` writes (dist-cli/), loaded with its V8 code cache,
// so it starts like a compiled tool. `npm run lbsync -- ...` builds first, for a clone whose sources changed.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const bundle = new URL('../dist-cli/lbsync.cjs', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('lbsync is not built yet: run `npm run build` in the scw-lb-sync folder (or use `npm run lbsync -- ...`)\n');
  process.exit(1);
}
const { main } = createRequire(import.meta.url)(bundle.pathname);
const code = await main(process.argv.slice(2));
// Exit now rather than waiting for idle keep-alive sockets (SDK clients) to time out, once stdout and stderr have
// handed over what was written: a pipe that is full (a reader slower than a fleet's 1.7 MB of --json) takes the
// rest asynchronously, and exiting at once would cut it.
const flushed = (stream) => new Promise((resolve) => stream.write('', resolve));
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);
