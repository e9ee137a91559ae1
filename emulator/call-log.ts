/** Records every API call and every successful backend write (the pool history). */
import type { CallRecord, PoolWrite } from './contract';

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

  finish(record: CallRecord, status: number): void {
    record.status = status;
    record.durationMs = Date.now() - record.at;
  }

  notePoolWrite(call: CallRecord, write: Omit<PoolWrite, 'at' | 'seq' | 'operation'>): void {
    this.poolWrites.push({ at: Date.now(), seq: call.seq, operation: call.operation, ...write });
  }

  calls(): CallRecord[] {
    return this.records.map((record) => ({ ...record }));
  }

  history(): PoolWrite[] {
    return this.poolWrites.map((write) => ({
      ...write,
      pool: [...write.pool],
      poolBefore: [...write.poolBefore],
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
