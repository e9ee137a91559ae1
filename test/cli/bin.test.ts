// The real `lbsync` bin as a child process against the emulator: exit codes and output of plan,
// reconcile and targets validate.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../emulator';
import { startEmulator } from '../../emulator';
import { DEMO_CONTROL_PLANE_IPS, DEMO_WORKER_IPS, demoSeed, FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../support/world';
import { runBin } from './support';

let emulator: EmulatorHandle;
let env: Record<string, string>;
const DEMO = { kops: { cluster: 'demo.k8s.local', zone: 'fr-par-1' } };

beforeAll(async () => {
  emulator = await startEmulator({ seed: demoSeed(), instancePendingMs: 50 });
  env = {
    SCW_ACCESS_KEY: FAKE_ACCESS_KEY,
    SCW_SECRET_KEY: FAKE_SECRET_KEY,
    SCW_API_URL: emulator.url,
    LBSYNC_TARGETS: JSON.stringify([DEMO]),
    LBSYNC_WAIT_BUDGET_MS: '5000',
  };
});
afterAll(async () => {
  await emulator?.stop();
});

describe('lbsync bin', () => {
  it("targets validate names a fleet target's project, organization and key variables (never a key)", async () => {
    const team = {
      kops: {
        cluster: 'team-b.k8s.local',
        zone: 'nl-ams-1',
        projectId: 'b1b1b1b1-0000-4000-8000-0000000000b1',
        organizationId: '0b0b0b0b-0000-4000-8000-00000000000b',
        credentials: { accessKeyEnv: 'TEAM_B_ACCESS_KEY', secretKeyEnv: 'TEAM_B_SECRET_KEY' },
      },
    };
    const run = await runBin(['targets', 'validate'], { ...env, LBSYNC_TARGETS: JSON.stringify([team]) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '  account: project b1b1b1b1-0000-4000-8000-0000000000b1; organization 0b0b0b0b-0000-4000-8000-00000000000b; key from TEAM_B_ACCESS_KEY / TEAM_B_SECRET_KEY',
    );
  });

  it('targets validate prints the backend fields and the health check a target names, the http request flattened', async () => {
    const api = {
      name: 'api',
      zone: 'fr-par-1',
      loadBalancer: { name: 'api.internal' },
      servers: { tags: ['role=api'] },
      backends: [
        {
          name: 'api-https',
          forwardPort: 6443,
          onMarkedDownAction: 'shutdown_sessions',
          timeoutQueueMs: 4000,
          healthCheck: { type: 'https', http: { uri: '/readyz', code: 200, sni: 'api.internal' } },
        },
      ],
    };
    const run = await runBin(['targets', 'validate'], { ...env, LBSYNC_TARGETS: JSON.stringify([api]) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '  backend api-https: tcp/6443 roundrobin, sticky none, proxy_protocol_none; onMarkedDownAction=shutdown_sessions timeoutQueueMs=4000; health check type=https http.uri=/readyz http.code=200 http.sni=api.internal',
    );
  });

  it('targets validate: field path and fix, exit 1; expanded targets as JSON, exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbsync-targets-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify([
        {
          name: 'prod',
          zone: 'fr-par',
          loadBalancer: { name: 'api' },
          backends: [{ name: 'b', forwardPort: 70000 }],
          servers: { tags: ['a'] },
        },
      ]),
    );
    const [invalid, valid] = await Promise.all([
      runBin(['targets', 'validate', '--file', bad], env),
      runBin(['targets', 'validate', '--json'], env),
    ]);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toContain('invalid: 2 problems');
    // Named by the file given, not by a variable the user did not set.
    expect(invalid.stdout).toContain(`${bad}[0].zone: must be a zone where Scaleway offers Load Balancers (got "fr-par")`);
    expect(invalid.stdout).toContain('fix: did you mean "fr-par-1"?');
    expect(invalid.stdout).toContain(`${bad}[0].backends[0].forwardPort: must be between 1 and 65535 (got 70000)`);
    expect(invalid.stdout).not.toContain('LBSYNC_CONFIG[');
    expect(invalid.stdout).toContain('fix: give a value of at most 65535');
    expect(invalid.stdout).not.toContain('\u001b['); // not a TTY: no colours
    expect(valid.code).toBe(0);
    const parsed = JSON.parse(valid.stdout) as {
      ok: boolean;
      command: string;
      targets: { name: string; loadBalancer: { name: string }; backends: { name: string }[] }[];
    };
    expect(parsed).toMatchObject({ ok: true, command: 'targets validate' });
    expect(parsed.targets[0]).toMatchObject({
      name: 'demo.k8s.local',
      loadBalancer: { name: 'api.demo.k8s.local' },
      backends: [
        { name: 'lb-backend-https', forwardPort: 443, createIfMissing: true },
        { name: 'lb-backend-kops-controller', forwardPort: 3988, createIfMissing: false }, // kopsController "auto"
      ],
    });
  });

  it('plan: drift exits 2 with a readable diff and a JSON shape; reconcile converges; plan then exits 0; an unknown LB exits 1', async () => {
    const [human, json] = await Promise.all([runBin(['plan'], env), runBin(['plan', '--json'], env)]);
    expect(human.code).toBe(2);
    expect(human.stdout).toContain('drift: 1 action');
    expect(human.stdout).toContain('backend lb-backend-https  missing: would be created');
    for (const ip of DEMO_CONTROL_PLANE_IPS) expect(human.stdout).toContain(`+ ${ip}`);
    for (const ip of DEMO_WORKER_IPS) expect(human.stdout).not.toContain(ip);
    expect(human.stdout).toContain('would run: CreateBackend lb-backend-https');
    expect(human.stdout).toContain(
      'backend lb-backend-kops-controller  absent: left alone (synced only while the LB has it; never created)',
    );
    expect(json.code).toBe(2);
    const plan = JSON.parse(json.stdout);
    expect(plan).toMatchObject({
      inSync: false,
      exitCode: 2,
      targets: [
        {
          target: 'demo.k8s.local',
          status: 'planned',
          lb: { name: 'api.demo.k8s.local', status: 'ready' },
          desiredPool: DEMO_CONTROL_PLANE_IPS,
          backends: [
            {
              name: 'lb-backend-https',
              exists: false,
              actualPool: [],
              added: DEMO_CONTROL_PLANE_IPS,
              removed: [],
              actions: ['CreateBackend'],
            },
            { name: 'lb-backend-kops-controller', exists: false, createIfMissing: false, actions: [] },
          ],
          actions: [{ kind: 'CreateBackend', backend: 'lb-backend-https', pool: DEMO_CONTROL_PLANE_IPS }],
        },
      ],
    });
    expect(emulator.calls().filter((c) => c.write)).toEqual([]); // a dry run never writes

    const applied = await runBin(['reconcile', '--json'], env);
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({
      ok: true,
      targets: [{ target: 'demo.k8s.local', status: 'applied', done: [{ kind: 'CreateBackend' }] }],
    });

    const withGhost = { ...env, LBSYNC_TARGETS: JSON.stringify([DEMO, { kops: { cluster: 'ghost.k8s.local', zone: 'fr-par-1' } }]) };
    const [inSync, ghost] = await Promise.all([runBin(['plan', '--target', 'demo.k8s.local'], withGhost), runBin(['plan'], withGhost)]);
    expect(inSync.code).toBe(0);
    expect(inSync.stdout).toMatch(/backend lb-backend-https {2}[0-9a-f-]{36} {2}in sync/);
    expect(ghost.code).toBe(1);
    expect(ghost.stdout).toContain('[lb_not_found]');
    expect(ghost.stdout).toContain('no load-balancer named "api.ghost.k8s.local"');
    expect(ghost.stdout).toContain('1 in sync, 0 with drift, 1 failed');

    // Backend fields a target names: each change as old -> new, a null shown as (unset), with why.
    const named = { kops: { ...DEMO.kops, backend: { onMarkedDownAction: 'shutdown_sessions', timeoutQueueMs: 4000 } } };
    const drift = await runBin(['plan'], { ...env, LBSYNC_TARGETS: JSON.stringify([named]) });
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain(
      'onMarkedDownAction: on_marked_down_action_none -> shutdown_sessions  (the target asks "shutdown_sessions", the LB has "on_marked_down_action_none")',
    );
    expect(drift.stdout).toContain('timeoutQueueMs: (unset) -> 4000  (the target asks 4000; the LB has none set)');
  });

  it('missing credentials: names the variable and the fix, exit 1, prints no secret', async () => {
    const result = await runBin(['plan'], { LBSYNC_TARGETS: env.LBSYNC_TARGETS as string, SCW_SECRET_KEY: FAKE_SECRET_KEY });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('SCW_ACCESS_KEY: is not set');
    expect(result.stderr).toContain('fix: export SCW_ACCESS_KEY');
    expect(result.stderr + result.stdout).not.toContain(FAKE_SECRET_KEY);
  });
});
