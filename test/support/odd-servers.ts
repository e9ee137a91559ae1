// Servers that answer in a way no client should take as it is, deterministically: one sends its headers (200, a JSON
// Content-Type and a Content-Length) and then never the body, an answer that stalls mid-way; the other answers 200
// with an HTML page to everything, as a proxy, a login portal or a wrong host does. Each request is kept; stop() ends
// the connections held open.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface OddServer {
  url: string;
  /** Every request that reached it: its method and path. */
  requests: { method: string; path: string }[];
  stop(): Promise<void>;
}

/** A server that answers every request with `answer` (given the request's method and path). */
export async function startAnsweringServer(
  answer: (response: ServerResponse, request: { method: string; path: string }) => void,
): Promise<OddServer> {
  const requests: OddServer['requests'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request: IncomingMessage, response) => {
    request.resume();
    const seen = { method: request.method ?? '', path: request.url ?? '' };
    requests.push(seen);
    answer(response, seen);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    stop: () =>
      new Promise<void>((closed) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => closed());
      }),
  };
}

/** Headers, and never the body. */
export function startStallingServer(): Promise<OddServer> {
  return startAnsweringServer((response) => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
    response.flushHeaders();
  });
}

export const HTML_PAGE = '<!doctype html><html><head><title>Sign in</title></head><body>Welcome to the portal</body></html>';

/** 200 and an HTML page, to every request. */
export function startHtmlServer(): Promise<OddServer> {
  return startAnsweringServer((response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(HTML_PAGE) });
    response.end(HTML_PAGE);
  });
}
