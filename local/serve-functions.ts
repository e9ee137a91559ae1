import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { serveHandler } from '@scaleway/serverless-functions';
import type { Handle } from '../shared/platform/function-shell';

export const FUNCTION_NAMES = ['reconcile', 'inject', 'sweep', 'watch'] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

export interface ServedFunction {
  name: FunctionName;
  url: string;
  stop(): Promise<void>;
}

/** The handlers, either the built bundles (dist/, what gets deployed) or the TypeScript sources. */
export async function loadHandlers(from: 'dist' | 'source'): Promise<Record<FunctionName, Handle>> {
  if (from === 'dist') {
    const require = createRequire(import.meta.url);
    const load = (name: FunctionName) => (require(`../dist/${name}/handler.js`) as { handle: Handle }).handle;
    return { reconcile: load('reconcile'), inject: load('inject'), sweep: load('sweep'), watch: load('watch') };
  }
  const [reconcile, inject, sweep, watch] = await Promise.all([
    import('../functions/reconcile/handler'),
    import('../functions/inject/handler'),
    import('../functions/sweep/handler'),
    import('../functions/watch/handler'),
  ]);
  return { reconcile: reconcile.handle, inject: inject.handle, sweep: sweep.handle, watch: watch.handle };
}

let listeningNoticeMuted = false;

/** serveHandler prints "Server listening at ..." for each function; our own banner says it once, better. */
function muteListeningNotice(): void {
  if (listeningNoticeMuted) return;
  listeningNoticeMuted = true;
  const log = console.log.bind(console);
  console.log = (...args: unknown[]) => {
    if (!(typeof args[0] === 'string' && args[0].startsWith('Server listening at'))) log(...args);
  };
}

/** Serves one handler with Scaleway's own local runtime emulation (@scaleway/serverless-functions). */
export async function serveFunction(name: FunctionName, handle: Handle, port = 0): Promise<ServedFunction> {
  muteListeningNotice();
  const app = serveHandler(handle as Parameters<typeof serveHandler>[0], port);
  await app.ready();
  if (!app.server.listening) await once(app.server, 'listening');
  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { name, url: `http://${host}:${address.port}`, stop: () => app.close() };
}
