/** The HTTP server: call log, latency, faults, auth, then the API or control routes. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleControl } from './control-api';
import type { EmulatorOperations } from './operations';
import { lbShown } from './call-log';
import { ApiError, apiErrors, defaultFaultBody, defaultFaultHeaders } from './errors';
import { applyWorldChange } from './fault-effects';
import { matchRoute, parseJsonBody, sendJson, visibleTo, type JsonAnswer, type Route, type RouteContext, type RouteMatch } from './http';
import { permissionsDenied, type PermissionRules } from './permissions';
import { organizationOfPath } from './tenancy';
import { apiRoutes, UNMATCHED_OPERATION } from './api-routes';
import type { CallRecord } from './contract';
import { actorOf } from './audit-trail';
import { KopsControl } from './kops/control';

/** kOps' rolling update, played by the emulator itself (emulator/kops/control.ts). */
const KOPS_ROLLING_UPDATE_PATH = '/_emulator/kops/rolling-update';

const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
const CONTROL_PREFIX = '/_emulator/';

export interface ServerSettings {
  host: string;
  port: number;
  latencyMs: number;
  requireAuth: boolean;
  /** API keys denied an API (403 permissions_denied), see permissions.ts. */
  permissions?: PermissionRules;
}

export interface RunningServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function hasAuthToken(req: IncomingMessage): boolean {
  const token = req.headers['x-auth-token'];
  return typeof token === 'string' && token.length > 0;
}

class RequestPipeline {
  private readonly routes: readonly Route[];

  constructor(
    private readonly operations: EmulatorOperations,
    private readonly settings: ServerSettings,
    readonly kops: KopsControl,
  ) {
    this.routes = apiRoutes(
      () => operations.auditTrail,
      () => operations.accounts,
    );
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator.local');
    const method = req.method ?? 'GET';
    const bodyText = await readBody(req);
    if (url.pathname.startsWith(CONTROL_PREFIX)) {
      sendJson(res, this.control(method, url.pathname, bodyText));
      return;
    }
    await this.api(req, res, method, url, bodyText);
  }

  private control(method: string, path: string, bodyText: string): JsonAnswer {
    try {
      if (path === KOPS_ROLLING_UPDATE_PATH) return this.kops.handle(method, parseJsonBody(bodyText));
      return handleControl(method, path, parseJsonBody(bodyText), this.operations);
    } catch (error) {
      if (error instanceof ApiError) return { status: error.status, body: error.body };
      return { status: 500, body: { message: (error as Error).message } };
    }
  }

  private async api(req: IncomingMessage, res: ServerResponse, method: string, url: URL, bodyText: string): Promise<void> {
    const match = matchRoute(this.routes, method, url.pathname);
    const operation = match.kind === 'found' ? match.route.operation : UNMATCHED_OPERATION;
    const call = this.operations.callLog.start(
      operation,
      method,
      url.pathname,
      url.search.replace(/^\?/, ''),
      WRITE_METHODS.includes(method),
      req.headers['user-agent'],
    );
    const answer = (result: JsonAnswer): void => {
      if (!res.destroyed) sendJson(res, result);
      const status = res.destroyed ? 0 : result.status;
      this.operations.callLog.finish(call, status, lbShown(operation, status, result.body));
    };

    if (this.settings.latencyMs > 0) await sleep(this.settings.latencyMs);

    const fault = this.operations.faultQueue.take(operation, url.pathname);
    if (fault?.gate) await this.operations.gates.hold(fault.gate);
    if (fault?.latencyMs) await sleep(fault.latencyMs);
    if (fault?.reset) {
      this.operations.callLog.finish(call, 0);
      req.socket.resetAndDestroy();
      return;
    }
    if (fault?.hang) {
      // Never answer: the socket stays open until the client aborts or the emulator stops.
      res.on('close', () => this.operations.callLog.finish(call, 0));
      return;
    }
    if (fault?.before) {
      try {
        applyWorldChange(this.operations.state, url.pathname, fault.before);
      } catch (error) {
        answer({ status: 500, body: { message: `emulator fault misconfigured: ${(error as Error).message}`, type: 'internal' } });
        return;
      }
    }
    if (fault?.status !== undefined) {
      const body = fault.body ?? defaultFaultBody(fault.status);
      answer({ status: fault.status, body, headers: fault.headers ?? defaultFaultHeaders(fault.status, body) });
      return;
    }

    answer(this.route(req, method, url, bodyText, match, call));
  }

  private route(
    req: IncomingMessage,
    method: string,
    url: URL,
    bodyText: string,
    match: RouteMatch<RouteContext>,
    call: CallRecord,
  ): JsonAnswer {
    try {
      if (this.settings.requireAuth && !hasAuthToken(req)) throw apiErrors.deniedAuthentication();
      const token = req.headers['x-auth-token'] as string | undefined;
      const refusal = this.settings.permissions?.refusal(token, method, url.pathname);
      if (refusal) throw refusal;
      if (match.kind === 'none') throw apiErrors.noRoute(method, url.pathname);
      if (match.kind === 'wrong-method') throw apiErrors.methodNotAllowed(method, url.pathname);
      // A key an organization holds is answered for that organization's resources only (emulator/tenancy.ts).
      const { state } = this.operations;
      const organization = state.tenancy.scopeOf(token);
      const owner = organizationOfPath(state, match.params);
      if (owner !== undefined && !visibleTo(organization, owner)) throw permissionsDenied(method, url.pathname);
      const body = parseJsonBody(bodyText);
      return match.route.handle({
        params: match.params,
        query: url.searchParams,
        body,
        state: this.operations.state,
        notePoolWrite: (write) =>
          this.operations.notePoolWrite(call, write, { body, headers: req.headers, remoteAddress: req.socket.remoteAddress }),
        actor: actorOf(req.headers, req.socket.remoteAddress),
        servers: this.operations.serverLifecycle,
        ...(organization !== undefined && { organization }),
      });
    } catch (error) {
      if (error instanceof ApiError) return { status: error.status, body: error.body };
      console.error('[emulator] handler failed', error);
      return { status: 500, body: { message: 'internal error', type: 'internal' } };
    }
  }
}

export async function listen(operations: EmulatorOperations, settings: ServerSettings): Promise<RunningServer> {
  let url = '';
  const pipeline = new RequestPipeline(operations, settings, new KopsControl(() => url));
  const server: Server = createServer((req, res) => {
    pipeline.handle(req, res).catch((error: unknown) => {
      console.error('[emulator] request failed', error);
      if (!res.headersSent && !res.destroyed) sendJson(res, { status: 500, body: { message: 'internal error', type: 'internal' } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  url = `http://${host}:${port}`;
  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    stop: () => {
      stopping ??= new Promise<void>((resolve) => {
        operations.gates.releaseAll();
        operations.serverLifecycle.clear();
        pipeline.kops.stop();
        server.close(() => resolve());
        // Hung requests and idle keep-alive sockets would otherwise hold close() open.
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}
