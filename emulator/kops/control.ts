/**
 * The control API's kOps routes: start kOps' rolling update of a cluster in the emulator (it plays kOps' own calls
 * against the emulator's URL, in the background), read its steps, stop it.
 *   POST   /_emulator/kops/rolling-update  {"cluster", "zone"?, "cloudOnly"?, "changedGroups"?, "timings"?} -> 202
 *   GET    /_emulator/kops/rolling-update  {"runs": [{cluster, state, steps, error?}]}
 *   DELETE /_emulator/kops/rolling-update  stops every run (its pending waits end; what kOps wrote stays)
 */
import type { JsonAnswer } from '../http';
import { KOPS_TIMINGS, KopsSession, type KopsStep, type KopsTimings } from './rolling-update';

/** The API key the control API's kOps runs authenticate with: a principal of its own in Audit Trail. */
export const KOPS_CONTROL_KEY = 'kops-operator-0000-4000-8000-0000000c0ffe';

interface ControlledRun {
  cluster: string;
  state: 'running' | 'done' | 'failed' | 'stopped';
  steps: KopsStep[];
  error?: string;
  abort: AbortController;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readTimings(value: unknown): Partial<KopsTimings> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new Error('timings must be an object of integer ms');
  const timings: Partial<KopsTimings> = {};
  for (const [name, ms] of Object.entries(value)) {
    if (!(name in KOPS_TIMINGS)) throw new Error(`unknown timing "${name}"; known: ${Object.keys(KOPS_TIMINGS).join(', ')}`);
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0) throw new Error(`timings.${name} must be a non-negative integer (ms)`);
    timings[name as keyof KopsTimings] = ms;
  }
  return timings;
}

export class KopsControl {
  private readonly runs: ControlledRun[] = [];

  constructor(private readonly apiUrl: () => string) {}

  handle(method: string, body: unknown): JsonAnswer {
    if (method === 'GET') return { status: 200, body: { runs: this.runs.map(({ abort: _abort, ...run }) => run) } };
    if (method === 'DELETE') {
      for (const run of this.runs.filter((r) => r.state === 'running')) run.abort.abort(new Error('stopped through the control API'));
      return { status: 200, body: { ok: true } };
    }
    if (method !== 'POST') return { status: 405, body: { message: `method ${method} not allowed` } };
    if (!isObject(body) || typeof body.cluster !== 'string' || body.cluster === '')
      return { status: 400, body: { message: 'expected {"cluster": "<name>", "zone"?, "cloudOnly"?, "changedGroups"?, "timings"?}' } };
    if (this.runs.some((r) => r.cluster === body.cluster && r.state === 'running'))
      return { status: 409, body: { message: `a rolling update of ${body.cluster} is running` } };
    let timings: Partial<KopsTimings>;
    try {
      timings = readTimings(body.timings);
    } catch (error) {
      return { status: 400, body: { message: (error as Error).message } };
    }
    const run: ControlledRun = { cluster: body.cluster, state: 'running', steps: [], abort: new AbortController() };
    this.runs.push(run);
    const session = new KopsSession({
      apiUrl: this.apiUrl(),
      secretKey: KOPS_CONTROL_KEY,
      cluster: body.cluster,
      zone: typeof body.zone === 'string' ? body.zone : 'fr-par-1',
      cloudOnly: body.cloudOnly === true,
      ...(Array.isArray(body.changedGroups) && { changedGroups: body.changedGroups.map(String) }),
      timings,
      signal: run.abort.signal,
      onStep: (step) => {
        run.steps.push(step);
      },
    });
    void (async () => {
      await session.updateCluster();
      await session.rollingUpdate();
    })().then(
      () => (run.state = 'done'),
      (error: unknown) => {
        run.state = run.abort.signal.aborted ? 'stopped' : 'failed';
        run.error = (error as Error)?.message ?? String(error);
      },
    );
    return { status: 202, body: { started: true, cluster: run.cluster } };
  }

  stop(): void {
    for (const run of this.runs) run.abort.abort(new Error('the emulator stopped'));
  }
}
