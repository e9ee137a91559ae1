// The CLI in-process against the whole local stack (emulator, SQS-compatible queue, the four
// functions served from source, the trigger bridge): reconcile, inject, sweep, provision, dlq, watch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../local/trigger-bridge';
import type { LocalStack } from '../../local/stack';
import { startDemoStack } from '../support/demo-stack';
import { DEMO_CONTROL_PLANE_IDS, DEMO_CONTROL_PLANE_IPS, DEMO_CP0_ID, DEMO_LB_ID, demoPool } from '../support/world';
import { UNKNOWN_TARGET_HINT } from '../../cli/hints';
import { main } from '../../cli/main';
import { runInProcess as lbsync, waitFor } from './support';

let stack: LocalStack;
const deliveries: (Delivery & { event?: { id?: string; source?: string } })[] = [];

const DEMO_CP1_ID = DEMO_CONTROL_PLANE_IDS[1] as string;

function deliveredEvent(id: string) {
  return deliveries.find((d) => d.event?.id === id && d.status === 200);
}

const pool = () => demoPool(stack.emulator);

beforeAll(async () => {
  stack = await startDemoStack({
    instancePendingMs: 50,
    env: {
      LBSYNC_WAIT_BUDGET_MS: '3000',
      LBSYNC_RETRY_BASE_MS: '100',
      LBSYNC_RETRY_CAP_MS: '200',
      LBSYNC_RETRY_HORIZON_MS: '30000',
      LBSYNC_MAX_HOLD_MS: '500',
    },
    onDelivery: (d) => {
      let event: { id?: string; source?: string } | undefined;
      try {
        event = JSON.parse(d.body) as { id?: string; source?: string };
      } catch {
        event = undefined;
      }
      deliveries.push({ ...d, ...(event && { event }) });
    },
  });
});
afterAll(async () => {
  await stack?.stop();
});

describe('lbsync against the local stack', () => {
  it('reconcile converges the demo backend and reports it; then plan is in sync', async () => {
    const applied = await lbsync(['reconcile', '--json']);
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({
      ok: true,
      targets: [{ status: 'applied', done: [{ kind: 'CreateBackend', pool: DEMO_CONTROL_PLANE_IPS }] }],
    });
    expect(pool()).toEqual(DEMO_CONTROL_PLANE_IPS);
    const again = await lbsync(['reconcile']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/demo\.k8s\.local\s+noop\s+in sync/);
    expect((await lbsync(['plan'])).code).toBe(0);
  });

  it('inject --url: 202 from the inject function, the id printed, the event processed', async () => {
    const sent = await lbsync([
      'inject',
      '--target',
      'demo.k8s.local',
      '--url',
      stack.functions.inject.url,
      '--source',
      'instance-replacement',
    ]);
    expect(sent.code).toBe(0);
    const eventId = sent.stdout.trim();
    expect(eventId).toMatch(/^evt-/);
    await waitFor('the injected event to be delivered', () => deliveredEvent(eventId));
  });

  it('inject --url with a wrong token: 401 told, exit 1, the token never printed', async () => {
    process.env.LBSYNC_TEST_WRONG_TOKEN = 'wrong-token-value-123';
    const refused = await lbsync([
      'inject',
      '-t',
      'demo.k8s.local',
      '--url',
      stack.functions.inject.url,
      '--token-env',
      'LBSYNC_TEST_WRONG_TOKEN',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refused the token (401)');
    expect(refused.stderr + refused.stdout).not.toContain('wrong-token-value-123');
    expect(refused.stderr + refused.stdout).not.toContain(stack.injectToken);
    const noUrl = await lbsync(['inject', '-t', 'demo.k8s.local']);
    expect(noUrl.code).toBe(64);
    const badIp = await lbsync(['inject', '-t', 'demo.k8s.local', '--queue', '--server-ips', '10.0.0.1,not-an-ip']);
    expect(badIp.code).toBe(1);
    expect(badIp.stderr).toContain('event.serverIps[1]: must be a valid IPv4 or IPv6 address');
  });

  it('inject --queue: straight onto the reconcile queue, JSON answer', async () => {
    const sent = await lbsync(['inject', '--target', 'demo.k8s.local', '--queue', '--dry-run', '--json']);
    expect(sent.code).toBe(0);
    const { eventId, via, plan } = JSON.parse(sent.stdout) as { eventId: string; via: string; plan: { where: string[] } };
    expect(via).toBe('queue');
    // The plan is the reconcile's, made on delivery: the answer says where to read it, by the event's id.
    expect(plan.where.join('\n')).toContain(`event_id ${eventId}`);
    expect(plan.where.join('\n')).toContain('lbsync plan -t demo.k8s.local');
    await waitFor('the queued event to be delivered', () => deliveredEvent(eventId));
    const text = await lbsync(['inject', '--target', 'demo.k8s.local', '--queue', '--dry-run']);
    expect(text.stderr).toContain('dry run: the reconcile plans this event when the queue delivers it');
    expect(text.stderr).toContain(`|= "${text.stdout.trim()}"`);
    const unknown = await lbsync(['inject', '--target', 'ghost', '--queue']);
    expect(unknown.code).toBe(64); // a flag value the configuration lacks is bad usage, as in every command
    expect(unknown.stderr).toContain('no target named "ghost"');
  });

  it('sweep: one sweep event per target, a summary; an unknown --target is bad usage (64)', async () => {
    const before = deliveries.filter((d) => d.event?.source === 'sweep').length;
    const swept = await lbsync(['sweep']);
    expect(swept.code).toBe(0);
    expect(swept.stdout).toContain('sweep: 1/1 target enqueued in 1 batch');
    await waitFor('the sweep event to be delivered', () => deliveries.filter((d) => d.event?.source === 'sweep').length > before);
    const unknown = await lbsync(['sweep', '--target', 'ghost', '--json']);
    expect(unknown.code).toBe(64);
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      ok: false,
      command: 'sweep',
      error: { code: 'usage', message: expect.stringContaining('no target named "ghost"'), hint: UNKNOWN_TARGET_HINT },
    });
  });

  it('watch without --once: one run per period until stopped', async () => {
    const stop = new AbortController();
    let stdout = '';
    const running = main(
      ['watch', '--json'],
      { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: () => true }, env: process.env },
      { stopSignal: stop.signal },
    );
    await waitFor('the first run', () => stdout.includes('"window"'));
    stop.abort();
    expect(await running).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, window: { from: expect.any(String), to: expect.any(String) } });
  });

  it('provision: idempotent, prints the URLs as env lines', async () => {
    const same = await lbsync(['provision', '--function-timeout', '30']); // as the stack provisioned them
    expect(same.code).toBe(0);
    expect(same.stdout).toBe(`RECONCILE_QUEUE_URL=${stack.reconcileQueueUrl}\nDEAD_LETTER_QUEUE_URL=${stack.deadLetterQueueUrl}\n`);
    expect(same.stderr).toContain('queues already up to date');
    const first = await lbsync(['provision', '--prefix', 'cli-test', '--json']);
    expect(JSON.parse(first.stdout)).toMatchObject({ created: ['cli-test-dead-letter', 'cli-test-reconcile'], updated: [] });
    const second = await lbsync(['provision', '--prefix', 'cli-test', '--json']);
    expect(JSON.parse(second.stdout)).toMatchObject({ created: [], updated: [] });
    const changed = await lbsync(['provision', '--prefix', 'cli-test', '--function-timeout', '120', '--json']);
    expect(JSON.parse(changed.stdout)).toMatchObject({ created: [], updated: ['cli-test-reconcile'] });
  });

  it('dlq: a dead-lettered event is listed, shown, redriven and processed; a raw invalid body cannot be redriven', async () => {
    await stack.bridge.waitIdle({ quietMs: 100, timeoutMs: 10_000 });
    stack.emulator.setLbStatus(DEMO_LB_ID, 'error');
    const sent = await lbsync(['inject', '--target', 'demo.k8s.local', '--queue', '--json']);
    const { eventId } = JSON.parse(sent.stdout) as { eventId: string };
    await stack.events.send(stack.reconcileQueueUrl, '{"version":1,"target":"demo.k8s.local","source":"manual","serverIps":["not-an-ip"]}');
    await waitFor(
      'both messages handled',
      () => deliveredEvent(eventId) && deliveries.some((d) => d.body.includes('not-an-ip') && d.status === 200),
    );

    const listed = await lbsync(['dlq', 'list', '--json']);
    expect(listed.code).toBe(0);
    const { ok, command, entries } = JSON.parse(listed.stdout) as {
      ok: boolean;
      command: string;
      entries: { messageId: string; eventId?: string; reason: string; errorCode?: string; redrivable: boolean; notRedrivable?: string }[];
    };
    expect({ ok, command }).toEqual({ ok: true, command: 'dlq list' });
    expect(entries).toHaveLength(2);
    const dead = entries.find((e) => e.eventId === eventId);
    expect(dead).toMatchObject({ reason: 'permanent_error', errorCode: 'lb_not_ready', redrivable: true });
    const raw = entries.find((e) => e.reason === 'invalid_event');
    expect(raw).toMatchObject({ redrivable: false });

    const table = await lbsync(['dlq', 'list']);
    expect(table.stdout).toMatch(/MESSAGE ID\s+EVENT ID\s+TARGET\s+REASON/);
    expect(table.stdout).toContain(eventId);
    const shown = await lbsync(['dlq', 'show', '--id', eventId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('lb_not_ready');
    expect(shown.stdout).toContain(`redrive   yes: lbsync dlq redrive --id ${eventId}`);

    // Fix the cause, move a server, redrive: the event is processed and the pool follows.
    stack.emulator.setLbStatus(DEMO_LB_ID, 'ready');
    stack.emulator.replaceServer(DEMO_CP0_ID, {
      name: 'control-plane-fr-par-1-0b',
      zone: 'fr-par-1',
      publicIps: ['51.15.100.31'],
      tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
    });
    const delivered = deliveries.length;
    const redriven = await lbsync(['dlq', 'redrive', '--id', eventId]);
    expect(redriven.code).toBe(0);
    expect(redriven.stdout).toContain(`redriven ${eventId}`);
    await waitFor('the redriven event to be processed', () =>
      deliveries.slice(delivered).some((d) => d.event?.id === eventId && d.status === 200),
    );
    await waitFor('the pool to follow', () => pool()?.includes('51.15.100.31'));
    expect(pool()).toEqual(['51.15.100.12', '51.15.100.13', '51.15.100.31']);

    const refused = await lbsync(['dlq', 'redrive', '--id', raw?.messageId as string]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('keeps only the raw body');
    const left = (JSON.parse((await lbsync(['dlq', 'list', '-o', 'json'])).stdout) as { entries: unknown[] }).entries;
    expect(left).toHaveLength(1); // the raw one stays; list and the refused redrive deleted nothing
    expect((await lbsync(['dlq', 'redrive'])).code).toBe(64);

    // What must not be redriven is discarded, only with --yes.
    const unconfirmed = await lbsync(['dlq', 'delete', '--id', raw?.messageId as string]);
    expect(unconfirmed.code).toBe(64);
    expect((JSON.parse((await lbsync(['dlq', 'list', '-o', 'json'])).stdout) as { entries: unknown[] }).entries).toHaveLength(1);
    const discarded = await lbsync(['dlq', 'delete', '--id', raw?.messageId as string, '--id', 'evt-unknown', '--yes', '-o', 'json']);
    expect(discarded.code).toBe(1);
    expect(JSON.parse(discarded.stdout)).toMatchObject({
      ok: false,
      command: 'dlq delete',
      deleted: [{ messageId: raw?.messageId }],
      skipped: [{ id: 'evt-unknown' }],
    });
    expect((JSON.parse((await lbsync(['dlq', 'list', '-o', 'json'])).stdout) as { entries: unknown[] }).entries).toEqual([]);
  });

  it('watch --once: a replacement found in Audit Trail is enqueued as an audit event and reconciled', async () => {
    await stack.bridge.waitIdle({ quietMs: 100, timeoutMs: 10_000 });
    stack.emulator.auditTrail.clear();
    stack.emulator.auditTrail.setDelayMs(0);
    const nothing = await lbsync(['watch', '--once', '--json']);
    expect(nothing.code).toBe(0);
    expect(JSON.parse(nothing.stdout)).toMatchObject({ ok: true, events: 0, enqueued: 0, targets: [] });
    const before = deliveries.filter((d) => d.event?.source === 'audit').length;
    stack.emulator.replaceServer(DEMO_CP1_ID, {
      name: 'cp-watched',
      zone: 'fr-par-1',
      tags: ['noprefix=kops.k8s.io/cluster=demo.k8s.local', 'noprefix=kops.k8s.io/role=ControlPlane'],
      publicIps: ['51.15.100.61'],
    });
    const found = await lbsync(['watch', '--once']);
    expect(found.code).toBe(0);
    expect(found.stdout).toMatch(/3 events, 3 relevant, 1 target enqueued/);
    expect(found.stdout).toContain("CreateServer cp-watched (fr-par-1): created with the target's tags");
    await waitFor(
      'the audit event to be delivered',
      () => deliveries.filter((d) => d.event?.source === 'audit' && d.status === 200).length > before,
    );
    await waitFor('the pool to hold the new server', () => pool()?.includes('51.15.100.61'));
    const unknown = await lbsync(['watch', '--once', '--target', 'demo.k8s.locl']);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('no target named "demo.k8s.locl" in the configuration (did you mean "demo.k8s.local"?)');
    const organization = process.env.SCW_DEFAULT_ORGANIZATION_ID;
    delete process.env.SCW_DEFAULT_ORGANIZATION_ID;
    try {
      const missing = await lbsync(['watch', '--once']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('SCW_DEFAULT_ORGANIZATION_ID: is not set');
    } finally {
      process.env.SCW_DEFAULT_ORGANIZATION_ID = organization;
    }
  });

  it('dlq: a message delivered twice is dead-lettered twice under one recordId; list marks the copy duplicate_of, redrive sends it once', async () => {
    await stack.bridge.waitIdle({ quietMs: 100, timeoutMs: 10_000 });
    stack.emulator.setLbStatus(DEMO_LB_ID, 'error');
    const body = JSON.stringify({
      version: 1,
      id: 'evt-twice',
      source: 'manual',
      target: 'demo.k8s.local',
      occurredAt: new Date().toISOString(),
      attempt: 0,
    });
    // The trigger redelivers a message whose answer it did not get: the same body, twice.
    for (let i = 0; i < 2; i += 1) {
      const answer = await fetch(stack.functions.reconcile.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      expect(await answer.json()).toMatchObject({
        outcome: 'dead_lettered',
        reason: 'permanent_error',
        eventId: 'evt-twice',
        attempt: 0,
        recordId: expect.stringMatching(/^dl-/),
      });
    }
    const listed = (
      JSON.parse((await lbsync(['dlq', 'list', '--json'])).stdout) as {
        entries: { messageId: string; eventId?: string; recordId: string; duplicate_of?: string; redrivable: boolean }[];
      }
    ).entries;
    const twice = listed.filter((e) => e.eventId === 'evt-twice');
    expect(twice).toHaveLength(2);
    expect(twice[0]?.recordId).toBe(twice[1]?.recordId);
    const [original, copy] = [twice.find((e) => !e.duplicate_of), twice.find((e) => e.duplicate_of)];
    expect(copy?.duplicate_of).toBe(original?.messageId);
    const table = await lbsync(['dlq', 'list']);
    expect(table.stdout).toContain(`duplicate of ${original?.messageId}`);
    expect(table.stdout).toMatch(/\(1 duplicate\)/);

    stack.emulator.setLbStatus(DEMO_LB_ID, 'ready');
    const before = deliveries.length;
    const redriven = await lbsync(['dlq', 'redrive', '--id', 'evt-twice', '--json']);
    expect(redriven.code).toBe(0);
    expect(JSON.parse(redriven.stdout)).toMatchObject({
      ok: true,
      redriven: [{ eventId: 'evt-twice', messageId: original?.messageId, duplicatesDeleted: 1 }],
    });
    await stack.bridge.waitIdle({ quietMs: 300, timeoutMs: 10_000 });
    expect(deliveries.slice(before).filter((d) => d.event?.id === 'evt-twice')).toHaveLength(1); // sent once
    const left = (JSON.parse((await lbsync(['dlq', 'list', '--json'])).stdout) as { entries: { eventId?: string }[] }).entries;
    expect(left.filter((e) => e.eventId === 'evt-twice')).toEqual([]);
  });

  it('--help: examples and exit codes, no colours off a TTY', async () => {
    const help = await lbsync(['plan', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('2   drift');
    expect((await lbsync(['nope'])).code).toBe(64);
  });

  it('emulator: serves the seeded API until stopped', async () => {
    const stop = new AbortController();
    let stdout = '';
    const running = main(
      ['emulator', '--port', '0', '--seed', 'demo', '--no-auth'],
      { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: () => true } },
      { stopSignal: stop.signal },
    );
    let url: string;
    try {
      url = await waitFor('the emulator URL', () => /^http:\/\/127\.0\.0\.1:\d+/m.exec(stdout)?.[0]);
      const lbs = (await (await fetch(`${url}/lb/v1/zones/fr-par-1/lbs`)).json()) as { lbs: { name: string }[] };
      expect(lbs.lbs.map((lb) => lb.name)).toEqual(['api.demo.k8s.local']);
    } finally {
      stop.abort();
    }
    expect(await running).toBe(0);
    await expect(fetch(`${url}/lb/v1/zones/fr-par-1/lbs`)).rejects.toThrow();
  });

  // Last: these targets are unknown to the served functions, so their events end up dead-lettered.
  it('sweep over many targets: periodic progress lines off a TTY, one rewritten counter on a TTY', async () => {
    const many = Array.from({ length: 45 }, (_, i) => ({ kops: { cluster: `c${i}.k8s.local`, zone: 'fr-par-1' } }));
    const env = { ...process.env, LBSYNC_TARGETS: JSON.stringify(many) };
    const plain = await lbsync(['sweep'], env);
    expect(plain.code).toBe(0);
    expect(plain.stderr.trim().split('\n')).toEqual([
      'enqueued 10/45',
      'enqueued 20/45',
      'enqueued 30/45',
      'enqueued 40/45',
      'enqueued 45/45',
    ]);
    expect(plain.stdout).toContain('sweep: 45/45 targets enqueued in 5 batches');
    let stderr = '';
    const code = await main(
      [
        'sweep',
        '--target',
        many
          .slice(0, 30)
          .map((t) => t.kops.cluster)
          .join(','),
      ],
      { stdout: { write: () => true }, stderr: { write: (t: string) => (stderr += t), isTTY: true }, env },
    );
    expect(code).toBe(0);
    expect(stderr).toBe('\renqueued 10/30 (33%)\renqueued 20/30 (66%)\renqueued 30/30 (100%)\n');
  });
});
