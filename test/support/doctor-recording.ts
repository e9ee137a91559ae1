/**
 * `lbsync doctor --record` as an operator runs it (the real bin), against an emulator seeded with a world that puts
 * the scrubbing to work: an LB with a backend whose pool is the control planes' addresses, a second LB whose name
 * holds the first one's (the API's name filter answers both), a control plane with an IPv6 address too.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallRecord, type EmulatorOptions, type EmulatorSeed, startEmulator } from '../../emulator';
import { runBin, type Run } from '../cli/support';
import { DEMO_CLUSTER, DEMO_CONTROL_PLANE_IPS, demoBackend, demoSeedWith, FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from './world';

export const OTHER_LB_ID = '0d7e5a41-6b2c-4f8e-9a13-5c4b3a2f1e0d';
export const CONTROL_PLANE_IPV6 = '2001:bc8:1640:3e1a::11';

export function recordingSeed(): EmulatorSeed {
  const seed = demoSeedWith({
    backends: [demoBackend(DEMO_CONTROL_PLANE_IPS)],
    moreLbs: [
      { id: OTHER_LB_ID, name: `api.${DEMO_CLUSTER}-previous`, zone: 'fr-par-1', status: 'ready', ipAddress: '51.159.10.21', backends: [] },
    ],
  });
  const [first, ...others] = seed.servers ?? [];
  if (!first) throw new Error('the demo seed has no server');
  return { ...seed, servers: [{ ...first, publicIps: [...(first.publicIps ?? []), CONTROL_PLANE_IPV6] }, ...others] };
}

export interface DoctorRecording {
  run: Run;
  /** The cassette's path, and its text ('' when none was written). */
  file: string;
  text: string;
  /** Every call the emulator answered during the run. */
  calls: CallRecord[];
  seed: EmulatorSeed;
}

/** An HTTP server in front of the emulator (its URL is what the CLI is given). */
export interface InFront {
  url: string;
  stop(): Promise<void>;
}

/**
 * In front of the emulator, an API that echoes what it is given: every ListServers answer gains a field `echo` whose
 * value is `echoJson`, written into the JSON text as it is (escapes and all). Every other exchange passes unchanged.
 */
export async function startEchoingApi(apiUrl: string, echoJson: string): Promise<InFront> {
  const server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(
          ([name, value]) => typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name),
        ),
      ) as Record<string, string>;
      const upstream = await fetch(`${apiUrl}${request.url}`, {
        method: request.method ?? 'GET',
        headers,
        ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
      });
      let body = await upstream.text();
      if (request.method === 'GET' && /^\/instance\/v1\/zones\/[^/]+\/servers(\?|$)/.test(request.url ?? ''))
        body = body.replace(/}\s*$/, `,"echo":${echoJson}}`);
      const kept = [...upstream.headers].filter(
        ([name]) => !['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(name),
      );
      response.writeHead(upstream.status, [...kept.flat(), 'content-length', String(Buffer.byteLength(body))]);
      response.end(body);
    })();
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((closed) => {
        server.closeAllConnections();
        server.close(() => closed());
      }),
  };
}

/** Runs `lbsync doctor --record <file> ...args` against a fresh emulator seeded with recordingSeed(). */
export async function recordDoctorRun(
  args: string[] = ['--no-queue'],
  options: {
    env?: Record<string, string>;
    emulator?: EmulatorOptions;
    file?: string;
    /** A server between the CLI and the emulator (startEchoingApi). */
    inFront?: (emulatorUrl: string) => Promise<InFront>;
  } = {},
): Promise<DoctorRecording> {
  const seed = recordingSeed();
  const emulator = await startEmulator({ ...options.emulator, seed });
  const front = await options.inFront?.(emulator.url);
  const file = options.file ?? join(mkdtempSync(join(tmpdir(), 'lbsync-record-')), 'doctor.cassette.yaml');
  try {
    const run = await runBin(
      ['doctor', '--record', file, ...args],
      {
        SCW_ACCESS_KEY: FAKE_ACCESS_KEY,
        SCW_SECRET_KEY: FAKE_SECRET_KEY,
        SCW_API_URL: front?.url ?? emulator.url,
        LBSYNC_TARGETS: JSON.stringify([{ kops: { cluster: DEMO_CLUSTER, zone: 'fr-par-1' } }]),
        ...options.env,
      },
      60_000,
    );
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // not written: the run says why
    }
    return { run, file, text, calls: emulator.calls(), seed };
  } finally {
    await front?.stop();
    await emulator.stop();
  }
}
