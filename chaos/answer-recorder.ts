/**
 * A transparent HTTP hop between the trigger bridge and the served reconcile function that keeps every
 * answer: the bridge's onDelivery reports the status but not the answer body, and the body is where the
 * function says applied / noop / retry_scheduled / dead_lettered. It forwards bytes unchanged.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedAnswer {
  /** The message body as delivered. */
  request: string;
  status: number | 'error';
  answer?: {
    outcome?: string;
    eventId?: string;
    target?: string;
    reason?: string;
    attempt?: number;
    error?: { code?: string };
  };
  at: number;
}

export interface AnswerRecorder {
  url: string;
  answers: RecordedAnswer[];
  onAnswer?: (answer: RecordedAnswer) => void;
  stop(): Promise<void>;
}

export async function startAnswerRecorder(functionUrl: string): Promise<AnswerRecorder> {
  const endpoint = `${functionUrl.replace(/\/+$/, '')}/`;
  const recorder: AnswerRecorder = { url: '', answers: [], stop: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = Buffer.concat(chunks).toString('utf8');
      void (async () => {
        let status: number | 'error' = 'error';
        let text = '';
        let contentType = 'application/json';
        try {
          const upstream = await fetch(endpoint, { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? 'application/json' }, body: request });
          status = upstream.status;
          contentType = upstream.headers.get('content-type') ?? contentType;
          text = await upstream.text();
        } catch {
          status = 'error';
        }
        let answer: RecordedAnswer['answer'];
        try {
          answer = JSON.parse(text) as RecordedAnswer['answer'];
        } catch {
          answer = undefined;
        }
        const record: RecordedAnswer = { request, status, ...(answer && { answer }), at: Date.now() };
        recorder.answers.push(record);
        recorder.onAnswer?.(record);
        if (status === 'error') {
          res.destroy();
          return;
        }
        res.writeHead(status, { 'content-type': contentType });
        res.end(text);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  recorder.url = `http://127.0.0.1:${port}`;
  recorder.stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return recorder;
}
