/** Queued faults, consumed in order by the API requests they match. */
import { OPERATION_NAMES } from './api-routes';
import { LB_STATUSES, type FaultSpec } from './contract';

/** An operation name a fault would wait for in vain (a misspelling such as ListLbs): refused, with the closest one. */
function unknownOperation(operation: string): string {
  const same = OPERATION_NAMES.find((name) => name.toLowerCase() === operation.toLowerCase());
  const hint = same ? ` (did you mean ${same}?)` : '';
  return `fault operation "${operation}" is no operation the emulator serves${hint}: one of ${OPERATION_NAMES.join(', ')} (docs/emulator.md, Operation names)`;
}

interface ArmedFault {
  spec: FaultSpec;
  remaining: number;
}

function isUnlimited(count: number | undefined): boolean {
  return count === Infinity || count === -1;
}

export class FaultQueue {
  private armed: ArmedFault[] = [];

  add(spec: FaultSpec): void {
    this.check(spec);
    const count = spec.count ?? 1;
    this.armed.push({ spec: { ...spec }, remaining: isUnlimited(count) ? Infinity : count });
  }

  /** Throws what is wrong with a fault (so a list of them is armed whole or not at all). */
  check(spec: FaultSpec): void {
    const count = spec.count ?? 1;
    if (!isUnlimited(count) && (!Number.isInteger(count) || count < 1)) {
      throw new Error(`fault count must be a positive integer, Infinity or -1 (got ${String(spec.count)})`);
    }
    if (spec.operation !== undefined && !OPERATION_NAMES.includes(spec.operation)) throw new Error(unknownOperation(spec.operation));
    const lbStatus = spec.before?.lbStatus;
    if (lbStatus !== undefined && !LB_STATUSES.includes(lbStatus)) {
      throw new Error(`fault before.lbStatus must be one of ${LB_STATUSES.join(', ')} (got ${String(lbStatus)})`);
    }
  }

  clear(): void {
    this.armed = [];
  }

  list(): FaultSpec[] {
    return this.armed.map(({ spec, remaining }) => ({ ...spec, count: remaining === Infinity ? -1 : remaining }));
  }

  /** The first fault matching this request, with one use consumed. */
  take(operation: string, path: string): FaultSpec | undefined {
    const index = this.armed.findIndex(
      ({ spec }) =>
        (spec.operation === undefined || spec.operation === operation) &&
        (spec.pathIncludes === undefined || path.includes(spec.pathIncludes)),
    );
    const found = this.armed[index];
    if (!found) return undefined;
    found.remaining -= 1;
    if (found.remaining <= 0) this.armed.splice(index, 1);
    return found.spec;
  }
}
