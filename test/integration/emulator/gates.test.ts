// Gates: a fault that holds matching requests until released, in process or over the control API, so a
// test (or the chaos driver in another process) orders concurrent requests instead of racing latencies.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { World } from '../../support/world';
import { startWorld } from '../../support/world';

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => {
  await world.stop();
});

const control = (path: string, init?: RequestInit) =>
  fetch(`${world.emulator.url}/_emulator/${path}`, init).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

describe('emulator gates', () => {
  it('hold matching requests until released, oldest first, count by count; the rest of the fault applies after', async () => {
    await control('faults', { method: 'POST', body: JSON.stringify({ operation: 'ListLbs', gate: 'g', count: 2, status: 503 }) });
    const gateway = world.gateway(30_000);
    const settled: string[] = [];
    const first = gateway.findLbsByName('fr-par-1', 'api.demo.k8s.local').then(
      () => settled.push('first ok'),
      () => settled.push('first failed'),
    );
    const second = gateway.findLbsByName('fr-par-1', 'api.demo.k8s.local').then(
      () => settled.push('second ok'),
      () => settled.push('second failed'),
    );
    for (;;) {
      const held = (await control('gates')).body.held as Record<string, number>;
      if (held.g === 2) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(settled).toEqual([]);
    expect((await control('gates/g/release', { method: 'POST', body: JSON.stringify({ count: 1 }) })).body).toEqual({ released: 1 });
    await first;
    expect(settled).toEqual(['first failed']); // released, then answered with the fault's 503
    expect(world.emulator.heldAtGates()).toEqual({ g: 1 });
    expect(world.emulator.releaseGate('g')).toBe(1);
    await second;
    expect(settled).toEqual(['first failed', 'second failed']);
    expect(world.emulator.heldAtGates()).toEqual({});
    expect((await control('gates/g/release', { method: 'POST', body: JSON.stringify({ count: 0 }) })).status).toBe(400);
  });
});
