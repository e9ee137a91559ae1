/**
 * `lbsync doctor --record` as an operator runs it (the real bin), against an emulator seeded with a world that puts
 * the scrubbing to work: an LB with a backend whose pool is the control planes' addresses, a second LB whose name
 * holds the first one's (the API's name filter answers both), a control plane with an IPv6 address too.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
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

/** Runs `lbsync doctor --record <file> ...args` against a fresh emulator seeded with recordingSeed(). */
export async function recordDoctorRun(
  args: string[] = ['--no-queue'],
  options: { env?: Record<string, string>; emulator?: EmulatorOptions; file?: string } = {},
): Promise<DoctorRecording> {
  const seed = recordingSeed();
  const emulator = await startEmulator({ ...options.emulator, seed });
  const file = options.file ?? join(mkdtempSync(join(tmpdir(), 'lbsync-record-')), 'doctor.cassette.yaml');
  try {
    const run = await runBin(
      ['doctor', '--record', file, ...args],
      {
        SCW_ACCESS_KEY: FAKE_ACCESS_KEY,
        SCW_SECRET_KEY: FAKE_SECRET_KEY,
        SCW_API_URL: emulator.url,
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
    await emulator.stop();
  }
}
