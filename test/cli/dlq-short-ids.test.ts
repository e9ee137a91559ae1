// `lbsync dlq show|redrive|delete --id` take the short event id the logs print (a unique prefix of an event or
// message id, at least 8 characters); a prefix that names several dead letters is refused with the candidates
// listed, and nothing is redriven or deleted for it. The real bin against the local queue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalQueue } from '../../local/queue-server';
import type { EventQueue } from '../../shared/adapters/queue';
import { prettyLine } from '../../shared/platform/log';
import { deadLetteredEvent, runBin, runDlq, startDeadLetterWorld } from './support';

const A = 'evt-0b7c1111-aaaa-4aaa-8aaa-000000000001';
const B = 'evt-0b7c2222-bbbb-4bbb-8bbb-000000000002';
const C = 'evt-9f00aaaa-cccc-4ccc-8ccc-000000000003';

let localQueue: LocalQueue;
let queue: EventQueue;
let env: Record<string, string>;
let urls: { reconcileQueueUrl: string; deadLetterQueueUrl: string };

const dlq = (args: string[]) => runDlq(args, env);

async function listed(): Promise<{ messageId: string; eventId?: string }[]> {
  return (JSON.parse((await runBin(['dlq', 'list', '-o', 'json'], env)).stdout) as { entries: { messageId: string; eventId?: string }[] })
    .entries;
}

beforeAll(async () => {
  ({ local: localQueue, queue, urls, env } = await startDeadLetterWorld('ids'));
  for (const id of [A, B, C]) await queue.send(urls.deadLetterQueueUrl, deadLetteredEvent(id));
});
afterAll(async () => {
  await localQueue?.stop();
});

describe('lbsync dlq --id with the short id the logs print', () => {
  it('show: the short id of a log line names its dead letter; a message id prefix too', async () => {
    const logged = prettyLine(
      JSON.stringify({
        level: 'INFO',
        timestamp: '2026-11-29T10:00:00.000Z',
        function_name: 'lbsync-reconcile',
        target: 'demo.k8s.local',
        event_id: C,
        attempt: 3,
        message: 'dead-lettered',
      }),
    );
    const short = /demo\.k8s\.local (evt-\S+) #3/.exec(logged)?.[1] as string;
    expect(short).toBe('evt-9f00aaaa');
    const shown = await dlq(['show', '--id', short]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`event     ${C}  target demo.k8s.local`);
    expect((await dlq(['show', '--id', short, '-o', 'json'])).json()).toMatchObject({ ok: true, entry: { eventId: C } });
    const messageId = (await listed()).find((e) => e.eventId === C)?.messageId as string;
    expect((await dlq(['show', '--id', messageId.slice(0, 8), '-o', 'json'])).json()).toMatchObject({ entry: { eventId: C, messageId } });
    // Shorter than 8 characters: only a whole id matches.
    const tooShort = await dlq(['show', '--id', 'evt-9f0']);
    expect(tooShort.code).toBe(1);
    expect(tooShort.stderr).toContain(
      "error [id_too_short] --id evt-9f0 is no whole id, and shorter than the 8 characters a prefix needs (1 dead letter's id starts with it)",
    );
  });

  it('show: an ambiguous prefix lists the candidates (exit 1, ambiguous_id)', async () => {
    const text = await dlq(['show', '--id', 'evt-0b7c']);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain("error [ambiguous_id] --id evt-0b7c is the start of 2 dead letters' ids: give more of it");
    expect(text.stderr).toContain(
      `--id: starts ${A} (target demo.k8s.local, max_receives), ${B} (target demo.k8s.local, max_receives) (got evt-0b7c)`,
    );
    const json = await dlq(['show', '--id', 'evt-0b7c', '-o', 'json']);
    expect(json.code).toBe(1);
    expect(json.json()).toMatchObject({
      ok: false,
      command: 'dlq show',
      error: { code: 'ambiguous_id', fieldErrors: [{ path: '--id', received: 'evt-0b7c', allowed: [A, B] }] },
    });
  });

  it('show and redrive: a prefix under 8 characters says that a prefix needs 8 (exit 1, id_too_short), never "no dead letter"', async () => {
    const text = await dlq(['show', '--id', 'evt-0']);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(
      "error [id_too_short] --id evt-0 is no whole id, and shorter than the 8 characters a prefix needs (2 dead letters' ids start with it)",
    );
    expect(text.stderr).not.toContain('no dead letter');
    const none = await dlq(['show', '--id', 'evt-f', '-o', 'json']);
    expect(none.json()).toMatchObject({ error: { code: 'id_too_short', fieldErrors: [{ path: '--id', received: 'evt-f' }] } });
    expect((none.json() as { error: { message: string } }).error.message).toContain('no id starts with it either');
    const redrive = await dlq(['redrive', '--id', 'evt-9', '-o', 'json']);
    expect(redrive.json()).toMatchObject({ skipped: [{ id: 'evt-9', why: expect.stringContaining('shorter than the 8 characters') }] });
  });

  it('delete and redrive: an ambiguous prefix is skipped with its candidates and touches nothing; a unique one acts', async () => {
    const refused = await dlq(['delete', '--id', 'evt-0b7c', '--yes', '-o', 'json']);
    expect(refused.code).toBe(1);
    expect(refused.json()).toMatchObject({ ok: false, deleted: [], skipped: [{ id: 'evt-0b7c', candidates: [A, B] }] });
    expect((await dlq(['redrive', '--id', 'evt-0b7c'])).stdout).toContain(`skipped  evt-0b7c: ambiguous: the start of ${A}`);
    expect(await listed()).toHaveLength(3);

    const redriven = await dlq(['redrive', '--id', 'evt-0b7c1111', '-o', 'json']);
    expect(redriven.code).toBe(0);
    expect(redriven.json()).toMatchObject({ ok: true, redriven: [{ eventId: A }], skipped: [] });
    const [sent] = await queue.receive(urls.reconcileQueueUrl, { maxMessages: 10, waitSeconds: 0 });
    expect(JSON.parse(sent?.body ?? '{}')).toMatchObject({ id: A, attempt: 0 });

    // Now the prefix names one dead letter.
    const deleted = await dlq(['delete', '--id', 'evt-0b7c', '--yes', '-o', 'json']);
    expect(deleted.code).toBe(0);
    expect(deleted.json()).toMatchObject({ ok: true, deleted: [{ id: B }], skipped: [] });
    expect((await listed()).map((e) => e.eventId)).toEqual([C]);
  });
});
