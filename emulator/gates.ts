/**
 * Gates: a fault with `gate: "<name>"` holds each request it matches until the test releases that gate
 * (in process, or POST /_emulator/gates/{name}/release). Races become orderings the test chooses, instead
 * of latencies that race each other on a busy machine.
 */
export class Gates {
  private readonly waiting = new Map<string, (() => void)[]>();

  /** Resolves when the gate is released for this request. */
  hold(name: string): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.waiting.get(name) ?? [];
      queue.push(resolve);
      this.waiting.set(name, queue);
    });
  }

  /** Lets the oldest `count` held requests through (all by default); returns how many went. */
  release(name: string, count = Number.POSITIVE_INFINITY): number {
    const queue = this.waiting.get(name) ?? [];
    const going = queue.splice(0, count);
    if (queue.length === 0) this.waiting.delete(name);
    for (const resolve of going) resolve();
    return going.length;
  }

  /** How many requests each gate holds now. */
  held(): Record<string, number> {
    return Object.fromEntries([...this.waiting].map(([name, queue]) => [name, queue.length]));
  }

  releaseAll(): void {
    for (const name of [...this.waiting.keys()]) this.release(name);
  }
}
