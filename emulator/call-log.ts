/** Records every API call and every successful backend write (the pool history). */
import type { CallRecord, PoolWrite, ShownLb } from './contract';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** What a GetLb answered 200 showed (the answer as sent, a fault's included); nothing for any other answer. */
export function lbShown(operation: string, status: number, body: unknown): ShownLb | undefined {
  if (operation !== 'GetLb' || status !== 200 || !isObject(body)) return undefined;
  const instances = Array.isArray(body.instances) ? body.instances : [];
  return {
    id: String(body.id),
    status: String(body.status),
    instances: instances.map((instance) => String(isObject(instance) ? instance.status : instance)),
  };
}

export class CallLog {
  private records: CallRecord[] = [];
  private poolWrites: PoolWrite[] = [];
  private nextSeq = 1;

  /** Starts a record when a request arrives; `finish` fills in its status and duration. */
  start(operation: string, method: string, path: string, query: string, write: boolean, userAgent?: string): CallRecord {
    const record: CallRecord = {
      seq: this.nextSeq++,
      at: Date.now(),
      operation,
      method,
      path,
      query,
      status: 0,
      write,
      durationMs: 0,
      ...(userAgent !== undefined && { userAgent }),
    };
    this.records.push(record);
    return record;
  }

  finish(record: CallRecord, status: number, lb?: ShownLb): void {
    record.status = status;
    record.durationMs = Date.now() - record.at;
    if (lb) record.lb = lb;
  }

  notePoolWrite(call: CallRecord, write: Omit<PoolWrite, 'at' | 'seq' | 'operation'>): void {
    this.poolWrites.push({ at: Date.now(), seq: call.seq, operation: call.operation, ...write });
  }

  calls(): CallRecord[] {
    return this.records.map((record) => ({ ...record, ...(record.lb && { lb: { ...record.lb, instances: [...record.lb.instances] } }) }));
  }

  history(): PoolWrite[] {
    return this.poolWrites.map((write) => ({
      ...write,
      pool: [...write.pool],
      poolBefore: [...write.poolBefore],
      changed: [...write.changed],
      health: { ...write.health },
      serverStates: { ...write.serverStates },
    }));
  }

  resetCalls(): void {
    this.records = [];
  }

  resetHistory(): void {
    this.poolWrites = [];
  }
}
