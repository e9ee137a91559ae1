// Progress for long loops: one counter line rewritten in place on a TTY, a line every tenth otherwise.
import type { Output } from './output';

export interface Progress {
  update(done: number, total: number): void;
  end(): void;
}

export function progress(out: Output, label: string, enabled = true): Progress {
  const tty = out.io.stderr.isTTY === true;
  let lastTenth = 0;
  let drawn = false;
  return {
    update(done, total) {
      if (!enabled || total < 20) return;
      if (tty) {
        out.io.stderr.write(`\r${label} ${done}/${total} (${Math.floor((done / total) * 100)}%)`);
        drawn = true;
        return;
      }
      const tenth = Math.floor((done / total) * 10);
      if (tenth > lastTenth || done === total) {
        lastTenth = tenth;
        out.note(`${label} ${done}/${total}`);
      }
    },
    end() {
      if (drawn) out.io.stderr.write('\n');
    },
  };
}
