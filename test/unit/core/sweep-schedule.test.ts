import { describe, expect, it } from 'vitest';
import {
  BATCH_WINDOW_MS,
  delaySecondsUntil,
  MAX_BATCH,
  pacedSends,
  spreadDueTimes,
  spreadOrder,
} from '../../../shared/core/sweep-schedule';

/** A small seeded generator, so the jitter is reproducible. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('spreadDueTimes', () => {
  const start = Date.UTC(2026, 10, 29, 10, 0, 0);

  it('gives each of N targets a due time inside its own slot of spread/N, so they are even and in order', () => {
    const due = spreadDueTimes(10_000, 300_000, start, lcg(7));
    expect(due).toHaveLength(10_000);
    due.forEach((t, i) => {
      expect(t).toBeGreaterThanOrEqual(Math.floor(start + i * 30));
      expect(t).toBeLessThan(start + (i + 1) * 30);
    });
    expect([...due].sort((a, b) => a - b)).toEqual(due);
    // At most ceil(1000 / 30) + 1 = 35 targets fall in any one second (vs 10,000 at once).
    const perSecond = new Map<number, number>();
    for (const t of due) perSecond.set(Math.floor((t - start) / 1000), (perSecond.get(Math.floor((t - start) / 1000)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(35);
    expect(perSecond.size).toBe(300);
  });

  it('jitters: two sweeps do not give the same times', () => {
    expect(spreadDueTimes(5, 60_000, start, lcg(1))).not.toEqual(spreadDueTimes(5, 60_000, start, lcg(2)));
  });

  it('no targets, no times', () => {
    expect(spreadDueTimes(0, 300_000, start)).toEqual([]);
  });
});

describe('pacedSends (hold mode: the sweep sends each batch when it is due)', () => {
  it('dense schedules go out in batches of 10', () => {
    const due = spreadDueTimes(10_000, 300_000, 0, lcg(3));
    const sends = pacedSends(due);
    expect(sends.every((s) => s.indexes.length <= MAX_BATCH)).toBe(true);
    expect(sends.length).toBe(1_000);
    expect(sends.flatMap((s) => s.indexes)).toEqual(due.map((_, i) => i));
  });

  it('a batch is sent when its last event is due, never before any of its events, and waits at most the batch window', () => {
    const due = spreadDueTimes(137, 300_000, 0, lcg(11));
    for (const { sendAt, indexes } of pacedSends(due)) {
      const times = indexes.map((i) => due[i] as number);
      expect(sendAt).toBe(Math.max(...times));
      expect(sendAt - Math.min(...times)).toBeLessThanOrEqual(BATCH_WINDOW_MS);
    }
  });

  it('sparse schedules send one event at a time', () => {
    expect(pacedSends([0, 5_000, 10_000]).map((s) => s.indexes)).toEqual([[0], [1], [2]]);
  });
});

describe('delaySecondsUntil (native mode: DelaySeconds)', () => {
  it('rounds up so a message is never delivered before it is due, and caps at 900 s', () => {
    expect(delaySecondsUntil(10_001, 0)).toBe(11);
    expect(delaySecondsUntil(10_000, 0)).toBe(10);
    expect(delaySecondsUntil(0, 5_000)).toBe(0);
    expect(delaySecondsUntil(2_000_000, 0)).toBe(900);
  });
});

describe('spreadOrder', () => {
  it('deals equal groups listed one after the other round-robin, each keeping its own order', () => {
    const items = ['a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'c1', 'c2', 'c3'];
    expect(spreadOrder(items, (x) => x[0] as string).map((i) => items[i])).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3', 'c3']);
  });

  it('spreads every group over the whole list: a group of n has one member in each n-th of the slots', () => {
    // 10 groups of unequal sizes, listed group by group.
    const items = Array.from({ length: 10 }, (_, g) => Array.from({ length: 20 + g * 7 }, (_, k) => ({ g, k }))).flat();
    const order = spreadOrder(items, (x) => String(x.g));
    expect([...order].sort((a, b) => a - b)).toEqual(items.map((_, i) => i));
    for (let g = 0; g < 10; g += 1) {
      const slots = order.flatMap((index, slot) => (items[index]?.g === g ? [slot] : []));
      const n = slots.length;
      slots.forEach((slot, k) => {
        // Member k of n sits near (k + 0.5) / n of the list, within one slot per group.
        expect(Math.abs(slot - ((k + 0.5) / n) * items.length)).toBeLessThanOrEqual(10);
      });
      expect(slots.map((s) => items[order[s] as number]?.k)).toEqual(slots.map((_, k) => k));
    }
  });
});
