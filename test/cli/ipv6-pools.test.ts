// A dual-stack target (ipSource public-dual) through `lbsync plan`, `reconcile`, `status` and `doctor`, as an
// operator runs them: the IPv6 members are shown as addresses of their servers, beside the IPv4 ones, with what
// discovery says of the servers (one with two IPv6, one with no IPv6); an LB that refuses IPv6 members is told with
// its code and hint, and nothing is written.
import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_CONTROL_PLANE_IPS, demoBackend, demoSeedWith } from '../support/world';
import { demoControlPlaneTarget, runInProcess, useInProcessCli } from './support';

const TARGET = 'demo-dual';
// Control plane 0: one routed IPv6; 1: two (the lowest is taken); 2: none (in the pool by its IPv4 only).
const CP0_V6 = '2001:bc8:710:4a11:dc00:ff:fe00:11';
const CP1_V6 = ['2001:bc8:710:4a12:dc00:ff:fe00:12', '2001:bc8:710:10:dc00:ff:fe00:12'];
const DUAL_POOL = [...DEMO_CONTROL_PLANE_IPS, '2001:bc8:710:10:dc00:ff:fe00:12', CP0_V6];

const cli = useInProcessCli([demoControlPlaneTarget(TARGET, 'public-dual')]);

function dualStackSeed() {
  const seed = demoSeedWith({ backends: [demoBackend(DEMO_CONTROL_PLANE_IPS)] });
  const extra: Record<string, string[]> = { '51.15.100.11': [CP0_V6], '51.15.100.12': CP1_V6 };
  return {
    ...seed,
    servers: seed.servers?.map((s) => ({ ...s, publicIps: [...(s.publicIps ?? []), ...(extra[s.publicIps?.[0] ?? ''] ?? [])] })),
  };
}

beforeEach(() => {
  cli.emulator.setBehaviours({ ipv6PoolMembers: 'accept' });
  cli.emulator.loadSeed(dualStackSeed());
  cli.emulator.resetCalls();
  cli.emulator.resetHistory();
});

const NOTES = [
  'server control-plane-fr-par-1-1 has 2 routed public IPv6 addresses (2001:bc8:710:10:dc00:ff:fe00:12, 2001:bc8:710:4a12:dc00:ff:fe00:12); using 2001:bc8:710:10:dc00:ff:fe00:12, the lowest',
  'server control-plane-fr-par-1-2 is in the pool by its IPv4 address only: it has no usable routed public IPv6 address',
];

describe('a dual-stack pool', () => {
  it('plan: the IPv6 members to add, each named as its server’s address, and what discovery says of the servers', async () => {
    const json = await runInProcess(['plan', '-o', 'json'], cli.env);
    expect(json.code).toBe(2);
    const [target] = (
      JSON.parse(json.stdout) as {
        targets: {
          desiredPool: string[];
          warnings: string[];
          backends: { added: string[]; poolChanges: { ip: string; change: string; why: string }[] }[];
        }[];
      }
    ).targets;
    expect(target?.desiredPool).toEqual(DUAL_POOL);
    expect(target?.backends[0]?.added).toEqual(DUAL_POOL.slice(3));
    expect(target?.backends[0]?.poolChanges).toEqual([
      { ip: DUAL_POOL[3], change: 'add', why: "address of server control-plane-fr-par-1-1, which carries the target's tags" },
      { ip: CP0_V6, change: 'add', why: "address of server control-plane-fr-par-1-0, which carries the target's tags" },
    ]);
    expect(target?.warnings).toEqual(expect.arrayContaining(NOTES));
    const text = await runInProcess(['plan'], cli.env);
    for (const ip of DUAL_POOL.slice(3)) expect(text.stdout).toContain(ip);
    for (const note of NOTES) expect(text.stdout).toContain(note);
    expect(cli.emulator.calls().filter((c) => c.write)).toEqual([]);
  });

  it('reconcile writes it in one write; status then shows every member, IPv6 included, passing and in sync', async () => {
    const run = await runInProcess(['reconcile', '-o', 'json'], cli.env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const writes = cli.emulator.history();
    expect(writes.map((w) => [w.operation, [...w.pool].sort()])).toEqual([['SetBackendServers', [...DUAL_POOL].sort()]]);
    const status = await runInProcess(['status', '--no-queue', '-o', 'json'], cli.env);
    expect(status.code).toBe(0);
    const [target] = (
      JSON.parse(status.stdout) as { targets: { inSync: boolean; members: { ip: string; health: string; inPool: boolean }[] }[] }
    ).targets;
    expect(target?.inSync).toBe(true);
    expect(target?.members.map((m) => [m.ip, m.health, m.inPool])).toEqual(DUAL_POOL.map((ip) => [ip, 'passed', true]));
    const text = await runInProcess(['status', '--no-queue'], cli.env);
    for (const ip of DUAL_POOL) expect(text.stdout).toMatch(new RegExp(`^ {4}${ip.replaceAll('.', '\\.')}\\s+passed`, 'm'));
  });

  it('doctor: the servers line names the pool with its IPv6 and warns of the two servers', async () => {
    const run = await runInProcess(['doctor', '--no-queue', '-o', 'json'], cli.env);
    const { checks } = JSON.parse(run.stdout) as { checks: { name: string; status: string; detail: string }[] };
    const line = checks.find((c) => c.name === `target:${TARGET}:servers`);
    expect(line?.status).toBe('warn');
    expect(line?.detail).toContain(`the pool would be [${DUAL_POOL.join(', ')}] (ipSource public-dual)`);
    for (const note of NOTES) expect(line?.detail).toContain(note);
  });

  it('an LB that refuses IPv6 members: reconcile fails with ipv6_pool_refused, its hint, and writes nothing', async () => {
    cli.emulator.setBehaviours({ ipv6PoolMembers: 'refuse' });
    const run = await runInProcess(['reconcile', '-o', 'json'], cli.env);
    expect(run.code).toBe(1);
    const body = JSON.parse(run.stdout) as { targets: { error?: { code: string; message: string; hint: string } }[] };
    const error = body.targets[0]?.error;
    expect(error?.code).toBe('ipv6_pool_refused');
    expect(error?.message).toContain(`refused the IPv6 member(s) ${DUAL_POOL.slice(3).join(', ')}`);
    expect(error?.hint).toContain('set servers.ipSource to public');
    expect(cli.emulator.history()).toEqual([]);
    const text = await runInProcess(['reconcile'], cli.env);
    expect(text.stdout).toContain(`error ${TARGET} [ipv6_pool_refused] `);
  });
});
