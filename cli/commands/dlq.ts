import { Command } from 'commander';
import type { Cli } from '../command';
import { act, collect, helpText, wholeNumber } from '../command';
import type { DeadLetterEntry } from '../dead-letters';
import {
  ambiguousIdError,
  candidateList,
  entrySummary,
  groupsFor,
  lookUpId,
  release,
  scanDeadLetters,
  tooShortIdError,
  tooShortWhy,
} from '../dead-letters';
import { queueAccess } from '../environment';
import { enqueueEvents } from '../../shared/handlers/enqueue-events';
import type { Output } from '../output';
import { CliError, EXIT, plural, table } from '../output';

const VISIBILITY_NOTE = `How reading works: SQS has no peek, so list/show/redrive receive every dead letter (hiding it
for a short visibility timeout, 30 s asked; Scaleway Queues apply the queue's own instead), then make
the ones they did not delete visible again at once. Consequences: while a command runs, a concurrent
reader does not see those messages; if it is killed they reappear after the visibility timeout; each
read adds one to a message's receive count; at most --limit messages are read.

Duplicates: a message delivered twice may be dead-lettered twice. Every record carries a recordId fixed by
the event (its id, target, attempt and body); later records of the same event are listed with duplicate_of
(the message id of the first), and redrive sends the event once and deletes its duplicates with it. Two
events that share only an id (for two targets) are not duplicates: each is redriven.`;

interface ListOptions {
  limit: string;
}

/** What `--id` says, in every dlq command's help. */
const ID_HELP = 'an event or SQS message id, or a unique prefix of one (at least 8 characters: the evt-0b7c1a2f the logs print)';

/** The dead letters the --id values name; ids naming none, or several events, are skipped with why. */
function selectByIds(entries: readonly DeadLetterEntry[], ids: readonly string[]) {
  const selected: DeadLetterEntry[] = [];
  const skipped: { id: string; why: string; candidates?: string[] }[] = [];
  for (const id of ids) {
    const lookup = lookUpId(entries, id);
    if (lookup.kind === 'found') selected.push(...lookup.entries.filter((e) => !selected.includes(e)));
    else if (lookup.kind === 'missing') skipped.push({ id, why: 'no dead letter with this event or message id' });
    else if (lookup.kind === 'too_short') skipped.push({ id, why: tooShortWhy(id, lookup.starts) });
    else
      skipped.push({
        id,
        why: `ambiguous: the start of ${candidateList(lookup)}; give more of the id`,
        candidates: lookup.candidates.map((c) => c.id),
      });
  }
  return { selected, skipped };
}

function scanOptions(limit: string) {
  return { limit: wholeNumber('--limit', limit, { min: 1 }), visibilityTimeoutSeconds: 30 };
}

type Skipped = { id: string; why: string; candidates?: string[] };
type DeadLetterGroup = ReturnType<typeof groupsFor>[number];

/**
 * The flow redrive and delete share: read the dead letters, hand each selected one with its duplicates to `settle`,
 * delete the whole group once settle says what it did (undefined: leave it), and make every message not deleted
 * visible again, even when a step fails.
 */
async function settleDeadLetters<T extends object>(
  cli: Cli,
  limit: string,
  select: (entries: readonly DeadLetterEntry[]) => { selected: readonly DeadLetterEntry[]; skipped: Skipped[] },
  settle: (group: DeadLetterGroup, q: ReturnType<typeof queueAccess>) => Promise<T | undefined>,
): Promise<{ settled: (T & { duplicatesDeleted?: number })[]; skipped: Skipped[] }> {
  const q = queueAccess(cli.io.env);
  const entries = await scanDeadLetters(q.queue, q.deadLetterQueueUrl, scanOptions(limit));
  const { selected, skipped } = select(entries);
  const settled: (T & { duplicatesDeleted?: number })[] = [];
  const deleted = new Set<string>();
  try {
    // One settle per recordId: a duplicate names its original, and goes with it.
    for (const group of groupsFor(entries, selected)) {
      const done = await settle(group, q);
      if (!done) continue;
      for (const entry of [group.original, ...group.duplicates]) {
        await q.queue.delete(q.deadLetterQueueUrl, entry.receiptHandle);
        deleted.add(entry.messageId);
      }
      settled.push({ ...done, ...(group.duplicates.length > 0 && { duplicatesDeleted: group.duplicates.length }) });
    }
  } finally {
    await release(
      q.queue,
      q.deadLetterQueueUrl,
      entries.filter((e) => !deleted.has(e.messageId)),
    );
  }
  return { settled, skipped };
}

function listCommand(cli: Cli): Command {
  return new Command('list')
    .description('list the dead letters (reason, target, event id, error) without removing them')
    .option('--limit <n>', 'read at most n messages', '1000')
    .addHelpText(
      'after',
      `${helpText(
        ['lbsync dlq list', 'lbsync dlq list -o json | jq \'.entries[] | select(.reason == "permanent_error")\''],
        [
          [0, 'listed (possibly none)'],
          [1, 'queue or configuration error'],
        ],
        '{ok, command: "dlq list", entries: [{messageId, eventId, target, reason, errorCode, recordId, duplicate_of?, redrivable, ...}]}',
      )}\n${VISIBILITY_NOTE}\n`,
    )
    .action(
      act<ListOptions>(cli, async (options, out) => {
        const q = queueAccess(cli.io.env);
        const entries = await scanDeadLetters(q.queue, q.deadLetterQueueUrl, scanOptions(options.limit));
        await release(q.queue, q.deadLetterQueueUrl, entries);
        if (out.format === 'json') {
          out.result(true, { entries: entries.map(entrySummary) });
          return EXIT.ok;
        }
        if (entries.length === 0) {
          out.line('the dead-letter queue is empty');
          return EXIT.ok;
        }
        const { c } = out;
        const rows = [
          ['MESSAGE ID', 'EVENT ID', 'TARGET', 'REASON', 'ERROR', 'DEAD-LETTERED', 'REDRIVE'].map((h) => c.dim(h)),
          ...entries.map((e) => [
            e.messageId,
            e.eventId ?? '-',
            e.target ?? '-',
            e.reason,
            e.errorCode ?? '-',
            e.deadLetteredAt ?? (e.sentAt ? new Date(e.sentAt).toISOString() : '-'),
            e.duplicateOf ? c.dim(`duplicate of ${e.duplicateOf}`) : e.redriveEvent ? c.green('yes') : c.red('no'),
          ]),
        ];
        for (const line of table(rows)) out.line(line);
        const duplicates = entries.filter((e) => e.duplicateOf).length;
        out.line(
          c.dim(
            `${plural(entries.length, 'dead letter')}${duplicates ? ` (${plural(duplicates, 'duplicate')})` : ''}; details: lbsync dlq show --id <event or message id>`,
          ),
        );
        return EXIT.ok;
      }),
    );
}

function showEntry(out: Output, e: DeadLetterEntry): void {
  const { c } = out;
  out.line(`${c.bold('message')}   ${e.messageId}  ${c.dim(`(received ${e.receiveCount}x)`)}`);
  out.line(
    `${c.bold('event')}     ${e.eventId ?? '-'}  target ${e.target ?? '-'}${e.record?.attempt !== undefined ? `  attempt ${e.record.attempt}` : ''}`,
  );
  if (e.duplicateOf) out.line(`${c.bold('duplicate')} of message ${e.duplicateOf} (same recordId ${e.recordId})`);
  out.line(`${c.bold('reason')}    ${e.reason}${e.errorCode ? `  ${c.red(e.errorCode)}` : ''}`);
  if (e.message) out.line(`${c.bold('error')}     ${e.message.split('\n').join('\n          ')}`);
  if (e.record?.error?.hint) out.line(`${c.bold('hint')}      ${e.record.error.hint}`);
  out.line(
    `${c.bold('redrive')}   ${e.redriveEvent ? c.green(`yes: lbsync dlq redrive --id ${e.eventId ?? e.messageId}`) : c.red(`no: ${e.notRedrivable}`)}`,
  );
  out.line(c.bold('body'));
  out.line(e.record ? JSON.stringify(e.record, null, 2) : e.body);
}

function showCommand(cli: Cli): Command {
  return new Command('show')
    .description('show one dead letter in full: the record, the error and hint, the kept event')
    .requiredOption('--id <id>', ID_HELP)
    .option('--limit <n>', 'read at most n messages', '1000')
    .addHelpText(
      'after',
      helpText(
        ['lbsync dlq show --id evt-0b7c...', 'lbsync dlq show --id evt-0b7c1a2f   # the short id the logs print'],
        [
          [0, 'shown'],
          [1, 'not found, ambiguous (the candidates are listed), or a queue/configuration error'],
        ],
        '{ok, command: "dlq show", entry: {...the list fields, record (or body when the record is not JSON)}}',
      ),
    )
    .action(
      act<ListOptions & { id: string }>(cli, async (options, out) => {
        const q = queueAccess(cli.io.env);
        const entries = await scanDeadLetters(q.queue, q.deadLetterQueueUrl, scanOptions(options.limit));
        await release(q.queue, q.deadLetterQueueUrl, entries);
        const lookup = lookUpId(entries, options.id);
        if (lookup.kind === 'ambiguous') throw ambiguousIdError(options.id, lookup);
        if (lookup.kind === 'too_short') throw tooShortIdError(options.id, lookup.starts);
        const entry = lookup.kind === 'found' ? (lookup.entries.find((e) => !e.duplicateOf) ?? lookup.entries[0]) : undefined;
        if (!entry)
          throw new CliError('not_found', `no dead letter with event or message id ${options.id}`, 'list them with `lbsync dlq list`');
        if (out.format === 'json')
          out.result(true, {
            entry: { ...entrySummary(entry), record: entry.record ?? null, ...(entry.record ? {} : { body: entry.body }) },
          });
        else showEntry(out, entry);
        return EXIT.ok;
      }),
    );
}

interface RedriveOptions {
  id?: string[];
  all?: boolean;
  limit: string;
}

function redriveCommand(cli: Cli): Command {
  return new Command('redrive')
    .description(
      'put dead-lettered events back on RECONCILE_QUEUE_URL (attempt 0, no notBefore nor firstAttemptAt), then delete the dead letters',
    )
    .option('--id <id>', `${ID_HELP} (repeatable, or comma-separated)`, collect)
    .option('--all', 'every dead letter that holds a valid event')
    .option('--limit <n>', 'read at most n messages', '1000')
    .addHelpText(
      'after',
      `${helpText(
        ['lbsync dlq redrive --id evt-0b7c...', 'lbsync dlq redrive --all'],
        [
          [0, 'every selected dead letter was redriven (--all leaves, and lists, those without a valid event)'],
          [
            1,
            'an --id could not be redriven (not found, ambiguous, or an invalid_event record holding only the raw body), or a queue error',
          ],
          [64, 'neither --id nor --all'],
        ],
        '{ok, command: "dlq redrive", redriven: [{eventId, messageId, target, duplicatesDeleted?}], skipped: [{id, why, candidates?}], left: [{id, why}]}',
      )}
Records of reason invalid_event keep only the raw body, which is not a valid event: they cannot be
redriven; read them with \`dlq show\`, fix the event and send it with \`lbsync inject\`.
`,
    )
    .action(
      act<RedriveOptions>(cli, async (options, out) => {
        if (!options.all && !options.id?.length)
          throw new CliError('usage', 'give --id <id> (repeatable) or --all', 'see `lbsync dlq list` for the ids');
        const notRedrivable: { id: string; why: string }[] = [];
        const result = await settleDeadLetters(
          cli,
          options.limit,
          (entries) => {
            const byIds = selectByIds(entries, options.id ?? []);
            return { selected: options.all ? entries : byIds.selected, skipped: byIds.skipped };
          },
          async ({ original: e }, q) => {
            if (!e.redriveEvent) {
              notRedrivable.push({ id: e.eventId ?? e.messageId, why: e.notRedrivable ?? 'not redrivable' });
              return undefined;
            }
            const { failure } = await enqueueEvents({ queue: () => q.queue, reconcileQueueUrl: q.reconcileQueueUrl }, [
              { event: e.redriveEvent },
            ]);
            if (failure) throw failure.error;
            return { eventId: e.redriveEvent.id, messageId: e.messageId, target: e.redriveEvent.target };
          },
        );
        const redriven = result.settled;
        // --all leaves (and lists) what holds no valid event; an --id naming one is skipped.
        const skipped = options.all ? result.skipped : [...result.skipped, ...notRedrivable];
        const left = options.all ? notRedrivable : [];
        const ok = skipped.length === 0;
        if (out.format === 'json') {
          out.result(ok, { redriven, skipped, left });
          return ok ? EXIT.ok : EXIT.error;
        }
        const { c } = out;
        for (const r of redriven) {
          const dup = r.duplicatesDeleted ? `, ${plural(r.duplicatesDeleted, 'duplicate')} deleted` : '';
          out.line(`${c.green('redriven')} ${r.eventId} ${c.dim(`(target ${r.target}, message ${r.messageId}${dup})`)}`);
        }
        for (const s of skipped) out.line(`${c.red('skipped')}  ${s.id}: ${s.why}`);
        for (const s of left) out.line(`${c.yellow('left')}     ${s.id}: ${s.why}`);
        out.line(
          `${plural(redriven.length, 'event')} put back on the reconcile queue${skipped.length ? `, ${skipped.length} skipped` : ''}`,
        );
        return ok ? EXIT.ok : EXIT.error;
      }),
    );
}

interface DeleteOptions {
  id?: string[];
  yes?: boolean;
  limit: string;
}

/** Discards dead letters that should not be redriven (a hostile or obsolete event), with their duplicates. */
function deleteCommand(cli: Cli): Command {
  return new Command('delete')
    .description('discard dead letters for good (with their duplicates): for records that must not be redriven')
    .option('--id <id>', `${ID_HELP} (repeatable, or comma-separated)`, collect)
    .option('--yes', 'confirm: the records are gone once deleted')
    .option('--limit <n>', 'read at most n messages', '1000')
    .addHelpText(
      'after',
      helpText(
        ['lbsync dlq delete --id evt-0b7c... --yes', 'lbsync dlq show --id evt-0b7c... && lbsync dlq delete --id evt-0b7c... --yes'],
        [
          [0, 'every --id was found and deleted'],
          [1, 'an --id was not found or is ambiguous (the others were deleted), or a queue error'],
          [64, 'no --id, or no --yes'],
        ],
        '{ok, command: "dlq delete", deleted: [{id, messageId, duplicatesDeleted?}], skipped: [{id, why, candidates?}]}',
      ),
    )
    .action(
      act<DeleteOptions>(cli, async (options, out) => {
        if (!options.id?.length) throw new CliError('usage', 'give --id <id> (repeatable)', 'see `lbsync dlq list` for the ids');
        if (!options.yes)
          throw new CliError(
            'usage',
            'deleting a dead letter cannot be undone: add --yes',
            'read it first with `lbsync dlq show --id <id>`',
          );
        const ids = options.id;
        const { settled: deleted, skipped } = await settleDeadLetters(
          cli,
          options.limit,
          (entries) => selectByIds(entries, ids),
          async ({ original: e }) => ({ id: e.eventId ?? e.messageId, messageId: e.messageId }),
        );
        const ok = skipped.length === 0;
        if (out.format === 'json') {
          out.result(ok, { deleted, skipped });
          return ok ? EXIT.ok : EXIT.error;
        }
        const { c } = out;
        for (const d of deleted) {
          const dup = d.duplicatesDeleted ? `, ${plural(d.duplicatesDeleted, 'duplicate')}` : '';
          out.line(`${c.yellow('deleted')}  ${d.id} ${c.dim(`(message ${d.messageId}${dup})`)}`);
        }
        for (const s of skipped) out.line(`${c.red('skipped')}  ${s.id}: ${s.why}`);
        out.line(`${plural(deleted.length, 'dead letter')} deleted${skipped.length ? `, ${skipped.length} skipped` : ''}`);
        return ok ? EXIT.ok : EXIT.error;
      }),
    );
}

export function dlqCommand(cli: Cli): Command {
  return new Command('dlq')
    .description('inspect, redrive or discard the dead-letter queue (DEAD_LETTER_QUEUE_URL)')
    .addCommand(listCommand(cli))
    .addCommand(showCommand(cli))
    .addCommand(redriveCommand(cli))
    .addCommand(deleteCommand(cli))
    .addHelpText('after', `\n${VISIBILITY_NOTE}\n`);
}
