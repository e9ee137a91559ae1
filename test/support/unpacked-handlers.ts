// The deployment archive as the platform gets it: unpacked (yauzl, not our own zip reader) into an empty folder,
// each handler then loaded in a node of its own by test/support/handler-load-child.cjs.
import { execFile, execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { delimiter, dirname, join, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
// @ts-expect-error: yauzl ships no type declarations
import yauzl from 'yauzl';

const CHILD = join(import.meta.dirname, 'handler-load-child.cjs');

interface ZipEntry {
  fileName: string;
}
interface ZipFile {
  eachEntry(): AsyncIterable<ZipEntry>;
  openReadStreamPromise(entry: ZipEntry): Promise<NodeJS.ReadableStream>;
  close(): void;
}

/** Unpacks every file of the archive under `into`; returns their paths in the archive. */
export async function unzipInto(archive: string, into: string): Promise<string[]> {
  const zip = (await (yauzl as { openPromise(path: string): Promise<ZipFile> }).openPromise(archive)) as ZipFile;
  const files: string[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith('/')) continue;
      const target = resolve(into, entry.fileName);
      if (!target.startsWith(into + sep)) throw new Error(`archive entry ${entry.fileName} lands outside ${into}`);
      mkdirSync(dirname(target), { recursive: true });
      await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(target));
      files.push(entry.fileName);
    }
  } finally {
    zip.close();
  }
  return files.sort();
}

export interface NodeBinary {
  path: string;
  version: string;
}

function versionOf(path: string): string | undefined {
  try {
    return execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
  } catch {
    return undefined;
  }
}

/** A Node 22 binary (the deploy runtime's major): LBSYNC_NODE22, else `node22` on PATH, else LBSYNC_CODE_CACHE_NODE if it is one. */
export function findNode22(env: NodeJS.ProcessEnv = process.env): NodeBinary | undefined {
  const candidates = [
    env.LBSYNC_NODE22,
    ...(env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'node22')),
    env.LBSYNC_CODE_CACHE_NODE,
  ].filter((path): path is string => typeof path === 'string' && path !== '' && existsSync(path));
  for (const path of candidates) {
    const version = versionOf(path);
    if (version?.startsWith('v22.')) return { path, version };
  }
  return undefined;
}

export interface PlatformRequest {
  httpMethod: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded: boolean;
}

export interface HandlerLoad {
  /** The module's own keys as the loader gave them (import() adds `default`). */
  exports: string[];
  handle: string;
  codeCache?: string;
  v8: string;
  answer?: { status: number; body: Record<string, unknown> };
  /** host:port of every outbound connection the handler tried (all refused). */
  connections: string[];
  /** Modules resolved outside the unpacked folder. */
  outside: string[];
}

/** Loads one unpacked handler with require() or import() in a fresh node and invokes it once with `request`. */
export async function loadHandler(options: {
  node: string;
  nodeOptions: string[];
  folder: string;
  handler: string;
  how: 'require' | 'import';
  request: PlatformRequest;
  env: Record<string, string>;
}): Promise<HandlerLoad> {
  const { stdout } = await promisify(execFile)(options.node, [...options.nodeOptions, CHILD, options.handler, options.how], {
    cwd: options.folder,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: options.folder,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      LOG_LEVEL: 'silent',
      ...options.env,
      HANDLER_FOLDER: options.folder,
      HANDLER_EVENT: JSON.stringify(options.request),
    },
    timeout: 60_000,
  });
  const line = stdout.split('\n').find((l) => l.startsWith('HANDLER_LOAD_RESULT '));
  if (!line) throw new Error(`the handler child printed no result: ${stdout.slice(-2000)}`);
  return JSON.parse(line.slice('HANDLER_LOAD_RESULT '.length)) as HandlerLoad;
}
