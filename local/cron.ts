// A 5-field cron (minute hour day-of-month month day-of-week, UTC), as Scaleway's cron trigger takes,
// and a ticker that fires a callback on each matching minute. Enough for the local stack's sweep.

const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day-of-week', min: 0, max: 7 },
] as const;

export type CronSchedule = Set<number>[];

function parseField(text: string, field: (typeof FIELDS)[number]): Set<number> {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const match = /^(\*|\d+)(?:-(\d+))?(?:\/(\d+))?$/.exec(part);
    if (!match) throw new Error(`cron ${field.name} "${text}": expected *, N, N-M, */S or lists of them`);
    const [, start, end, step] = match;
    const from = start === '*' ? field.min : Number(start);
    const to = start === '*' ? field.max : end !== undefined ? Number(end) : step !== undefined ? field.max : from;
    const by = step !== undefined ? Number(step) : 1;
    if (from < field.min || to > field.max || from > to || by < 1) {
      throw new Error(`cron ${field.name} "${text}": values must be within ${field.min}-${field.max}`);
    }
    for (let v = from; v <= to; v += by) values.add(field.name === 'day-of-week' && v === 7 ? 0 : v);
  }
  return values;
}

export function parseCron(expression: string): CronSchedule {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`cron "${expression}": expected 5 fields (minute hour day-of-month month day-of-week)`);
  return parts.map((part, i) => parseField(part, FIELDS[i] as (typeof FIELDS)[number]));
}

export function cronMatches(schedule: CronSchedule, date: Date): boolean {
  const [minute, hour, dom, month, dow] = schedule as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  return (
    minute.has(date.getUTCMinutes()) &&
    hour.has(date.getUTCHours()) &&
    dom.has(date.getUTCDate()) &&
    month.has(date.getUTCMonth() + 1) &&
    dow.has(date.getUTCDay())
  );
}

/** Calls fire() at the start of every matching UTC minute until stopped. */
export function startCronTicker(expression: string, fire: (at: Date) => void): { stop(): void } {
  const schedule = parseCron(expression);
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const now = Date.now();
    const nextMinute = Math.floor(now / 60_000) * 60_000 + 60_000;
    timer = setTimeout(() => {
      const at = new Date(nextMinute);
      if (cronMatches(schedule, at)) fire(at);
      arm();
    }, nextMinute - now);
    timer.unref();
  };
  arm();
  return { stop: () => clearTimeout(timer) };
}

/** Calls run() every `everyMs` ms, one run at a time (a run that overruns delays the next). */
export function startIntervalTicker(everyMs: number, run: () => Promise<unknown>): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = () => {
    timer = setTimeout(() => {
      void run()
        .catch(() => undefined)
        .finally(() => {
          if (!stopped) arm();
        });
    }, everyMs);
    timer.unref();
  };
  arm();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
