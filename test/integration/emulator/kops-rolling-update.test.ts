/**
 * The emulator plays kOps' rolling update as kOps does it (emulator/kops/): call by call, with kOps' User-Agent and its
 * own API key, every write recorded in Audit Trail as kOps'. Judged by the emulator's call log, pool history and Audit
 * Trail, against the calls read in kubernetes/kops (pkg/instancegroups/instancegroups.go, scaleway/cloud.go,
 * scalewaytasks/instance.go and lb_backend.go).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallRecord, EmulatorHandle } from '../../../emulator';
import { KOPS_USER_AGENT, KopsSession, kopsRollingUpdate, principalIdOf, startEmulator } from '../../../emulator';
import { convergedDemoSeed, DEMO_CONTROL_PLANE_IPS, DEMO_WORKER_IPS } from '../../support/world';

const KOPS_KEY = 'kops-operator-secret-key';
const FAST = { drainMs: 150, postDrainDelayMs: 5, controlPlaneIntervalMs: 5, validateMs: 5, serverPollMs: 5, lbPollMs: 5 };
const options = (emulator: EmulatorHandle) => ({ apiUrl: emulator.url, secretKey: KOPS_KEY, cluster: 'demo.k8s.local', zone: 'fr-par-1' });

let emulator: EmulatorHandle;
beforeAll(async () => {
  emulator = await startEmulator({ instancePendingMs: 10 });
});
afterAll(() => emulator.stop());
beforeEach(() => {
  emulator.setBehaviours({ poweronMs: 20, terminateMs: 40, healthPassAfterMs: 0, healthFailAfterMs: 0 });
  emulator.loadSeed(convergedDemoSeed());
  emulator.resetCalls();
  emulator.resetHistory();
  emulator.auditTrail.clear();
});

const ops = (calls: CallRecord[]) => calls.map((c) => c.operation);
/** The call log with runs of the same poll (GetServer, GetLb) folded into one. */
const folded = (calls: CallRecord[]) => ops(calls).filter((op, i, all) => !(op === all[i - 1] && (op === 'GetServer' || op === 'GetLb')));

describe("kOps' rolling update of the demo cluster's three control planes", () => {
  it('makes every call as kOps: its User-Agent, its principal in Audit Trail, in the order kOps makes them', async () => {
    const run = await kopsRollingUpdate({ ...options(emulator), timings: FAST });
    const calls = emulator.calls();
    expect(new Set(calls.map((c) => c.userAgent))).toEqual(new Set([KOPS_USER_AGENT]));
    expect(KOPS_USER_AGENT).toMatch(/^scaleway-sdk-go\/v1\.0\.0-beta\.\d+ \(go[\d.]+; linux; amd64\) kubernetes-kops\/[\d.]+/);
    expect(run.replaced).toHaveLength(3);

    // `kops update cluster`: each control plane read, then re-tagged with the mark; the backend rewritten (workers in).
    const marks = emulator.auditTrail.events().filter((e) => e.method_name === 'UpdateServer');
    expect(marks).toHaveLength(3);
    for (const mark of marks) {
      expect((mark.request_body as { tags: string[] }).tags).toContain('noprefix=kops.k8s.io/needs-update');
      expect(mark).toMatchObject({ user_agent: KOPS_USER_AGENT, principal: { id: principalIdOf(KOPS_KEY) } });
    }

    // Then, per control plane: DeregisterInstance, the drain, DeleteInstance, the apply (successor, backends).
    const seq = folded(calls);
    const perServer = [
      'GetServer',
      'ListIPs',
      'ListLbs',
      'ListBackends',
      'RemoveBackendServers',
      'GetServer',
      'ServerAction',
      'GetServer',
      'ListLbs',
      'ListServers',
      'ListServers',
      'CreateServer',
      'GetServer',
      'ServerAction',
      'GetServer',
      'ListServers',
      'ListBackends',
      'ListServers',
    ];
    const first = seq.indexOf('RemoveBackendServers') - 4;
    expect(seq.slice(first, first + perServer.length)).toEqual(perServer);
    expect(seq.filter((op) => op === 'RemoveBackendServers')).toHaveLength(3);
    expect(seq.filter((op) => op === 'CreateServer')).toHaveLength(3);
    // The apply after each termination and the one of `kops update cluster`: UpdateBackend + SetBackendServers each.
    expect(seq.filter((op) => op === 'SetBackendServers')).toHaveLength(4);

    const trail = emulator.auditTrail.events();
    const byKops = (method: string) => trail.filter((e) => e.method_name === method && e.user_agent === KOPS_USER_AGENT);
    expect(byKops('RemoveBackendServers')).toHaveLength(3);
    expect(byKops('CreateServer')).toHaveLength(3);
    expect(
      byKops('ServerAction')
        .map((e) => (e.request_body as { action: string }).action)
        .sort(),
    ).toEqual(['poweron', 'poweron', 'poweron', 'terminate', 'terminate', 'terminate']);
    // kOps' UpdateBackend sends on_marked_down_action as the Go SDK's "" (unset), which resets it.
    for (const e of byKops('UpdateBackend')) expect((e.request_body as Record<string, unknown>).on_marked_down_action).toBe('');
    // kOps' own rule: every server of the cluster but role=Node, so the workers (no role tag) are written in.
    for (const e of byKops('SetBackendServers'))
      expect((e.request_body as { server_ip: string[] }).server_ip).toEqual(expect.arrayContaining(DEMO_WORKER_IPS));

    // The deregistered address leaves the pool before its server stops; the drain is as long as asked.
    const history = emulator.history();
    const deregistrations = history.filter((w) => w.operation === 'RemoveBackendServers');
    expect(deregistrations.flatMap((w) => w.poolBefore.filter((ip) => !w.pool.includes(ip))).sort()).toEqual(DEMO_CONTROL_PLANE_IPS);
    for (const w of deregistrations) expect(Object.values(w.serverStates).every((state) => state === 'running')).toBe(true);
    const terminates = calls.filter((c) => c.operation === 'ServerAction').filter((_c, i) => i % 2 === 0);
    for (const [i, w] of deregistrations.entries()) expect((terminates[i]?.at ?? 0) - w.at).toBeGreaterThanOrEqual(FAST.drainMs);
  });

  it('--cloudonly: no deregistration, no drain, no validation; terminate comes first', async () => {
    const run = await kopsRollingUpdate({ ...options(emulator), cloudOnly: true, timings: { ...FAST, drainMs: 60_000 } });
    expect(ops(emulator.calls())).not.toContain('RemoveBackendServers');
    expect(run.steps.map((s) => s.step)).not.toContain('cordoned');
    expect(run.steps.map((s) => s.step)).not.toContain('validated');
    expect(run.replaced).toHaveLength(3);
  });

  it('a single control plane: kOps does not deregister it (DeregisterControlPlaneNodes is off)', async () => {
    const seed = convergedDemoSeed();
    seed.servers = (seed.servers ?? []).filter((s) => s.name !== 'control-plane-fr-par-1-1' && s.name !== 'control-plane-fr-par-1-2');
    emulator.loadSeed(seed);
    const run = await kopsRollingUpdate({ ...options(emulator), timings: FAST });
    expect(ops(emulator.calls())).not.toContain('RemoveBackendServers');
    expect(run.steps.map((s) => s.step)).toContain('drained');
  });
});

describe('the Instance API writes, with the recorded states', () => {
  it('CreateServer: stopped with a routed IPv4; poweron: starting, then running; terminate: stopping without IP, then gone', async () => {
    const kops = new KopsSession({ ...options(emulator), timings: FAST });
    const { server } = await kops.cloud.sdk.send<{ server: { id: string; state: string; public_ips: { address: string }[] } }>(
      'POST',
      '/instance/v1/zones/fr-par-1/servers',
      { name: 'cp-new', commercial_type: 'DEV1-M', image: 'ubuntu_noble', routed_ip_enabled: true, tags: ['a'] },
    );
    expect(server.state).toBe('stopped');
    expect(server.public_ips).toHaveLength(1);
    await kops.cloud.sdk.send('POST', `/instance/v1/zones/fr-par-1/servers/${server.id}/action`, { action: 'poweron' });
    expect((await kops.cloud.getServer(server.id)).server.state).toBe('starting');
    await new Promise((r) => setTimeout(r, 40));
    expect((await kops.cloud.getServer(server.id)).server.state).toBe('running');
    await kops.cloud.sdk.send('POST', `/instance/v1/zones/fr-par-1/servers/${server.id}/action`, { action: 'terminate' });
    const stopping = (await kops.cloud.getServer(server.id)).server as unknown as { state: string; public_ips: unknown[] };
    expect(stopping).toMatchObject({ state: 'stopping', public_ips: [] });
    await new Promise((r) => setTimeout(r, 80));
    await expect(kops.cloud.getServer(server.id)).rejects.toMatchObject({ status: 404 });
    const trail = emulator.auditTrail.events().map((e) => `${e.method_name} ${JSON.stringify(e.request_body ?? {})}`);
    expect(trail).toEqual([
      expect.stringMatching(/^CreateServer \{"name":"cp-new"/),
      'ServerAction {"action":"poweron"}',
      'ServerAction {"action":"terminate"}',
    ]);
  });

  it("UpdateServer re-tags (Audit Trail records it, the watcher's relevance reads the new tags); an unknown action is a 400", async () => {
    const kops = new KopsSession({ ...options(emulator), timings: FAST });
    const [first] = await kops.cloud.clusterServers('demo.k8s.local');
    const id = first?.id as string;
    await kops.cloud.sdk.send('PATCH', `/instance/v1/zones/fr-par-1/servers/${id}`, { tags: [...(first?.tags ?? []), 'x'] });
    expect((await kops.cloud.getServer(id)).server.tags).toContain('x');
    expect(emulator.auditTrail.events().at(-1)).toMatchObject({
      method_name: 'UpdateServer',
      request_body: { tags: expect.arrayContaining(['x']) },
    });
    await expect(
      kops.cloud.sdk.send('POST', `/instance/v1/zones/fr-par-1/servers/${id}/action`, { action: 'explode' }),
    ).rejects.toMatchObject({
      status: 400,
    });
  });
});
