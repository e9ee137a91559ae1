import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { serveHandler } from '@scaleway/serverless-functions';
import { FUNCTION_NAMES, type FunctionName } from '../functions/registry';
import type { Handle } from '../shared/platform/function-shell';

export interface ServedFunction {
  name: FunctionName;
  url: string;
  stop(): Promise<void>;
}

/** The handlers, either the built bundles (dist/, what gets deployed) or the TypeScript sources. */
export async function loadHandlers(from: 'dist' | 'source'): Promise<Record<FunctionName, Handle>> {
  const require = createRequire(import.meta.url);
  const load = async (name: FunctionName): Promise<[FunctionName, Handle]> => {
    const module = (from === 'dist' ? require(`../dist/${name}/handler.js`) : await import(`../functions/${name}/handler.ts`)) as {
      handle: Handle;
    };
    return [name, module.handle];
  };
  return Object.fromEntries(await Promise.all(FUNCTION_NAMES.map(load))) as Record<FunctionName, Handle>;
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
