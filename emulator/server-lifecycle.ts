/**
 * Servers changed through the Instance API's own routes (CreateServer, UpdateServer, ServerAction), as kOps changes
 * them: each call is recorded in Audit Trail with the caller's identity (emulator/audit-trail.ts), and the states
 * follow the recorded timings: a created server is `stopped` with its routed public IPv4; `poweron` makes it
 * `starting`, then `running` after `poweronMs`; `terminate` makes it `stopping` with no public IP at once (recorded:
 * `public_ips: []`), then gone after `terminateMs`. The control API's changes (operations.ts) stay instant.
 */
import { randomUUID } from 'node:crypto';
import type { AuditActor, AuditTrailLog } from './audit-trail';
import { recordServerAction, recordServerChange } from './audit-trail';
import type { ServerRecord } from './records';
import type { EmulatorState } from './state';

/** The actions the Instance API's ServerAction takes (the SDK's `ServerAction`). */
export const API_SERVER_ACTIONS = ['poweron', 'backup', 'stop_in_place', 'poweroff', 'terminate', 'reboot', 'enable_routed_ip'] as const;
export type ApiServerAction = (typeof API_SERVER_ACTIONS)[number];

export interface CreatedServer {
  name: string;
  zone: string;
  commercialType: string;
  tags: string[];
}

export class ServerLifecycle {
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  /** Routed IPv4 addresses handed out so far (51.158.0.0/16, never one in use). */
  private allocated = 0;

  constructor(
    private readonly state: () => EmulatorState,
    private readonly auditTrail: AuditTrailLog,
  ) {}

  /** CreateServer: `stopped`, with a new routed public IPv4 (and its IPAM entry), as kOps asks (routed_ip_enabled). */
  create(input: CreatedServer, actor: AuditActor): ServerRecord {
    const state = this.state();
    const server = state.upsertServer({
      id: randomUUID(),
      name: input.name,
      zone: input.zone,
      tags: [...input.tags],
      state: 'stopped',
      commercialType: input.commercialType,
      publicIps: [this.nextAddress()],
    });
    recordServerChange(this.auditTrail, undefined, server, actor);
    return server;
  }

  /** UpdateServer: the fields given (tags, name) replace the server's. */
  update(server: ServerRecord, patch: { tags?: string[]; name?: string }, actor: AuditActor): ServerRecord {
    const before = { ...server, tags: [...server.tags] };
    if (patch.tags) server.tags = [...patch.tags];
    if (patch.name !== undefined) server.name = patch.name;
    server.modifiedAt = new Date().toISOString();
    recordServerChange(this.auditTrail, before, server, actor);
    return server;
  }

  action(server: ServerRecord, action: ApiServerAction, actor: AuditActor): void {
    const state = this.state();
    recordServerAction(this.auditTrail, server, action, actor);
    const { poweronMs, terminateMs } = state.behaviours;
    switch (action) {
      case 'poweron':
        state.setServerState(server.id, 'starting');
        this.later(poweronMs, () => state.servers.get(server.id)?.state === 'starting' && state.setServerState(server.id, 'running'));
        return;
      case 'terminate':
        state.detachPublicIps(server.id);
        state.setServerState(server.id, 'stopping');
        this.later(terminateMs, () => state.removeServer(server.id));
        return;
      case 'poweroff':
      case 'stop_in_place':
        state.setServerState(server.id, action === 'poweroff' ? 'stopped' : 'stopped in place');
        return;
      default:
        return;
    }
  }

  /** Forgets the pending state changes (the emulator stops, or a new seed replaces the world). */
  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private later(ms: number, run: () => void): void {
    if (ms <= 0) {
      run();
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private nextAddress(): string {
    const known = this.state().knownAddresses();
    for (;;) {
      const n = this.allocated;
      this.allocated += 1;
      const address = `51.158.${Math.floor(n / 250) % 256}.${(n % 250) + 1}`;
      if (!known.has(address)) return address;
    }
  }
}
