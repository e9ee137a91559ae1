// The CLI in a shadow deployment's environment (LBSYNC_MODE=shadow): `lbsync reconcile` plans as a write would and
// writes nothing (the emulator's call log judges); `lbsync status` shows, per target, "shadow: would have written N
// times", N read from the logs data source with the dashboard's own query, over log lines the reconcile handler
// really printed in shadow mode; without a token or URL it says the count was not read, never a number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../emulator';
import { startEmulator } from '../../emulator';
import { startLocalQueue, type LocalQueue } from '../../local/queue-server';
import { createEventQueue } from '../../shared/adapters/queue';
import { sendEvent } from '../support/deliveries';
import { type CockpitStandIn, startCockpitStandIn } from '../support/cockpit-stand-in';
import { demoSeed, demoTarget, FAKE_SECRET_KEY } from '../support/world';
import { demoApiEnv, runBin } from './support';

let emulator: EmulatorHandle;
let local: LocalQueue;
let standIn: CockpitStandIn;
const COCKPIT_TOKEN = 'cockpit-query-token-0042';

beforeAll(async () => {
  emulator = await startEmulator({ seed: demoSeed(), instancePendingMs: 20 });
  local = await startLocalQueue();
  standIn = await startCockpitStandIn({
    secretKey: FAKE_SECRET_KEY,
    projectId: '00000000-0000-4000-8000-000000000001',
    grafana: { token: 'unused' },
    cockpitToken: COCKPIT_TOKEN,
  });
});
afterAll(async () => {
  await emulator?.stop();
  await local?.stop();
  await standIn?.stop();
});

const env = () => ({ ...demoApiEnv(emulator.url), LBSYNC_MODE: 'shadow' });

describe('the CLI with LBSYNC_MODE=shadow', () => {
  it('lbsync reconcile plans the write (the backend is missing), says so, and sends no write', async () => {
    emulator.resetCalls();
    const text = await runBin(['reconcile'], env());
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain('LBSYNC_MODE=shadow: planning as a write would, writing nothing');
    expect(text.stdout).toMatch(/demo\.k8s\.local\s+planned \(shadow\)\s+shadow, not written: CreateBackend lb-backend-https/);
    const json = await runBin(['reconcile', '-o', 'json'], env());
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, targets: [{ status: 'planned', mode: 'shadow', apiCalls: { writes: 0 } }] });
    expect(emulator.calls().filter((c) => c.write)).toEqual([]);
  });

  it('lbsync status shows the count the logs hold, per target; no token or URL: "not read", never a number', async () => {
    // Three events reconciled by the real handler in shadow mode, their lines as the function printed them.
    const events = createEventQueue(local.settings);
    for (let i = 0; i < 3; i += 1) {
      const run = await sendEvent(
        events,
        emulator,
        demoTarget(),
        { LBSYNC_MODE: 'shadow' },
        {
          onLogLine: (line) => standIn.logLines.push(JSON.parse(line) as Record<string, unknown>),
        },
      );
      expect(await run.untilFinal()).toMatchObject({ outcome: 'dry_run', mode: 'shadow' });
    }
    // A dry run asked for by an operator is no shadow write: not counted.
    const dry = await sendEvent(
      events,
      emulator,
      demoTarget(),
      { LBSYNC_MODE: 'shadow' },
      {
        event: { dryRun: true },
        onLogLine: (line) => standIn.logLines.push(JSON.parse(line) as Record<string, unknown>),
      },
    );
    await dry.untilFinal();
    expect(standIn.logLines.filter((l) => l.log_type === 'reconcile_answer')).toHaveLength(4);

    const status = await runBin(['status', '--no-queue', '--logs-url', standIn.logsUrl], { ...env(), COCKPIT_TOKEN });
    expect(status.code, status.stderr).toBe(2);
    expect(status.stdout).toContain('shadow: would have written 3 times in the last 24h');
    expect(status.stdout + status.stderr).not.toContain(COCKPIT_TOKEN);
    const json = JSON.parse(
      (await runBin(['status', '--no-queue', '--logs-url', standIn.logsUrl, '-o', 'json'], { ...env(), COCKPIT_TOKEN })).stdout,
    );
    expect(json.targets[0].shadow).toEqual({ window: '24h', wouldHaveWritten: 3 });
    expect(standIn.calls.filter((c) => c.path.endsWith('/loki/api/v1/query')).length).toBe(2);

    const noToken = await runBin(['status', '--no-queue', '--logs-url', standIn.logsUrl, '-o', 'json'], env());
    expect(JSON.parse(noToken.stdout).targets[0].shadow).toMatchObject({ window: '24h', notRead: 'COCKPIT_TOKEN is not set' });
    const noUrl = await runBin(['status', '--no-queue'], env());
    expect(noUrl.stdout).toContain('shadow: would have written ? times in the last 24h: not read (no --logs-url)');
    const refused = await runBin(['status', '--no-queue', '--logs-url', standIn.logsUrl, '-o', 'json'], {
      ...env(),
      COCKPIT_TOKEN: 'wrong',
    });
    expect(JSON.parse(refused.stdout).targets[0].shadow.notRead).toMatch(/^the logs data source did not answer: \[authentication_denied\]/);
    // A writing deployment's environment shows no shadow line, unless asked.
    const writing = await runBin(['status', '--no-queue'], demoApiEnv(emulator.url));
    expect(writing.stdout).not.toContain('shadow:');
  }, 60_000);
});
