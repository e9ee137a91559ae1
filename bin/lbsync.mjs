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
// Exit now rather than waiting for idle keep-alive sockets (SDK clients) to time out.
// stdout/stderr writes to files and pipes are synchronous on Linux and macOS, so nothing is lost.
process.exit(code);
