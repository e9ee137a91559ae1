// The node:http transport the Scaleway SDK uses instead of fetch: what goes on the wire and what comes
// back, the deadline, network errors, and connections kept alive between requests.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRequest } from '../../../shared/adapters/http-messages';
import { createHttpTransport } from '../../../shared/adapters/http-transport';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  socket: Socket;
}

let server: Server;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += String(chunk)));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, socket: req.socket });
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
      if (req.url === '/empty') {
        res.writeHead(204);
        return void res.end();
      }
      res.writeHead(req.url === '/missing' ? 404 : 200, { 'Content-Type': 'application/json', 'X-Total-Count': '7' });
      res.end(JSON.stringify({ echo: body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('http transport', () => {
  const transport = createHttpTransport({ timeoutMs: 500 });

  it('sends method, headers and body; answers status, headers and body', async () => {
    const response = await transport(
      new HttpRequest(`${base}/lb/v1/x?name=a`, {
        method: 'PUT',
        headers: { 'X-Auth-Token': 'tok', 'Content-Type': 'application/json' },
        body: '{"server_ip":["10.0.0.1"]}',
      }),
    );
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ method: 'PUT', url: '/lb/v1/x?name=a', body: '{"server_ip":["10.0.0.1"]}' });
    expect(request.headers).toMatchObject({ 'x-auth-token': 'tok', 'content-type': 'application/json', 'content-length': '26' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-total-count')).toBe('7');
    expect(await response.json()).toEqual({ echo: '{"server_ip":["10.0.0.1"]}' });
  });

  it("takes Node's own Request as well", async () => {
    const response = await transport(new Request(`${base}/missing`, { method: 'GET', headers: { Accept: 'application/json' } }));
    expect(response.status).toBe(404);
    expect(response.ok).toBe(false);
    expect(seen.at(-1)?.headers.accept).toBe('application/json');
  });

  it('a 204 answers a null body', async () => {
    const response = await transport(new HttpRequest(`${base}/empty`, { method: 'DELETE' }));
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('reuses the connection for the next request', async () => {
    await transport(new HttpRequest(`${base}/a`));
    const first = seen.at(-1)!.socket;
    await transport(new HttpRequest(`${base}/b`));
    expect(seen.at(-1)!.socket).toBe(first);
  });

  it('gives up at the deadline with a TimeoutError (classified as a network error, retried)', async () => {
    const started = Date.now();
    const failure = await transport(new HttpRequest(`${base}/slow`)).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(1_900);
  });

  it('a refused connection rejects with the socket error', async () => {
    const failure = await transport(new HttpRequest('http://127.0.0.1:9/')).catch((error: NodeJS.ErrnoException) => error);
    expect((failure as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });
});
