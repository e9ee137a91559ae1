/**
 * A Scaleway LB + Instance + IPAM API on loopback, for the local stack, tests and benchmarks.
 * The real Scaleway SDK talks to it with `apiURL` set to `handle.url`.
 */
import { EmulatorControls } from './controls';
import { listen } from './server';
import type { EmulatorState } from './state';
import type { CallRecord, EmulatorOptions, EmulatorSeed, FaultSpec, LbStatus, PoolWrite, SeedServer } from './types';

export type {
  CallRecord,
  EmulatorOptions,
  EmulatorSeed,
  FaultSpec,
  LbStatus,
  PoolWrite,
  SeedBackend,
  SeedIpamIp,
  SeedLb,
  SeedPrivateNic,
  SeedServer,
} from './types';
export { LB_STATUSES, TRANSIENT_LB_STATUSES } from './types';
export { faultBodies, type FaultAnswer } from './errors';
export type { EmulatorState } from './state';

export interface EmulatorHandle {
  url: string;
  port: number;
  stop(): Promise<void>;
  state: EmulatorState;
  calls(): CallRecord[];
  resetCalls(): void;
  history(): PoolWrite[];
  resetHistory(): void;
  addFault(fault: FaultSpec): void;
  clearFaults(): void;
  /** How many requests each gate fault holds now. */
  heldAtGates(): Record<string, number>;
  /** Lets the oldest `count` requests held at this gate through (all by default); returns how many went. */
  releaseGate(name: string, count?: number): number;
  setLbStatus(lbId: string, status: LbStatus, forMs?: number): void;
  replaceServer(oldServerId: string, newServer: SeedServer): void;
  upsertServer(server: SeedServer): void;
  removeServer(serverId: string): void;
  /** Replaces the whole state; the call log and pool history are kept. */
  loadSeed(seed: EmulatorSeed): void;
  /** LBs (with backends), servers and IPAM IPs in API shapes, as served by GET /_emulator/state. */
  dumpState(): Record<string, unknown>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const controls = new EmulatorControls(options.instancePendingMs ?? 1500, options.seed);
  const server = await listen(controls, {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    latencyMs: options.latencyMs ?? 0,
    requireAuth: options.requireAuth ?? true,
  });
  return {
    url: server.url,
    port: server.port,
    stop: server.stop,
    state: controls.state,
    calls: () => controls.calls(),
    resetCalls: () => controls.resetCalls(),
    history: () => controls.history(),
    resetHistory: () => controls.resetHistory(),
    addFault: (fault) => controls.addFault(fault),
    clearFaults: () => controls.clearFaults(),
    heldAtGates: () => controls.heldAtGates(),
    releaseGate: (name, count) => controls.releaseGate(name, count),
    setLbStatus: (lbId, status, forMs) => controls.setLbStatus(lbId, status, forMs),
    replaceServer: (oldServerId, newServer) => void controls.replaceServer(oldServerId, newServer),
    upsertServer: (server_) => void controls.upsertServer(server_),
    removeServer: (serverId) => controls.removeServer(serverId),
    loadSeed: (seed) => controls.loadSeed(seed),
    dumpState: () => controls.dumpState(),
  };
}
