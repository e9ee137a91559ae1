#!/usr/bin/env node
// The `lbsync` command: runs cli/main.ts through tsx's ESM loader, so a fresh clone works
// after `npm ci` with no build step. Node >= 20.6 (module.register).
import { register } from 'tsx/esm/api';

register();
const { main } = await import(new URL('../cli/main.ts', import.meta.url).href);
const code = await main(process.argv.slice(2));
// Exit now rather than waiting for idle keep-alive sockets (SDK clients) to time out.
// stdout/stderr writes to files and pipes are synchronous on Linux and macOS, so nothing is lost.
process.exit(code);
