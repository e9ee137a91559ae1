/**
 * A transparent HTTP hop between the trigger bridge and the served reconcile function that keeps every
 * answer: the bridge's onDelivery reports the status but not the answer body, and the body is where the
 * function says applied / noop / retry_scheduled / dead_lettered. It forwards bytes unchanged, and records when
 * each delivery started and ended, so every answer can be matched to the API calls made for it (evidence.ts).
 * It can also play a crashing function: for an event id armed with crash(), it answers 502 without calling the
 * function, as a function killed mid-way would leave the trigger.
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
    recordId?: string;
  };
  /** When the delivery reached the recorder, and when its answer was back. */
  startedAt: number;
  at: number;
  /** Answered 502 by the recorder itself (a crash it was asked to play). */
  crashed?: boolean;
}

export interface AnswerRecorder {
  url: string;
  answers: RecordedAnswer[];
  onAnswer?: (answer: RecordedAnswer) => void;
  /** The next `times` deliveries of this event id crash (502, the function not called). */
  crash(eventId: string, times: number): void;
  stop(): Promise<void>;
}

function eventIdOf(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

export async function startAnswerRecorder(functionUrl: string): Promise<AnswerRecorder> {
  const endpoint = `${functionUrl.replace(/\/+$/, '')}/`;
  const crashes = new Map<string, number>();
  const recorder: AnswerRecorder = {
    url: '',
    answers: [],
    crash: (eventId, times) => void crashes.set(eventId, times),
    stop: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const startedAt = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = Buffer.concat(chunks).toString('utf8');
      const crashFor = eventIdOf(request);
      const left = crashFor === undefined ? 0 : (crashes.get(crashFor) ?? 0);
      if (crashFor !== undefined && left > 0) {
        crashes.set(crashFor, left - 1);
        const record: RecordedAnswer = { request, status: 502, startedAt, at: Date.now(), crashed: true };
        recorder.answers.push(record);
        recorder.onAnswer?.(record);
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"message":"the function crashed (played by the chaos run)"}');
        return;
      }
      void (async () => {
        let status: number | 'error' = 'error';
        let text = '';
        let contentType = 'application/json';
        try {
          const upstream = await fetch(endpoint, {
            method: 'POST',
            headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
            body: request,
          });
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
        const record: RecordedAnswer = { request, status, ...(answer && { answer }), startedAt, at: Date.now() };
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
