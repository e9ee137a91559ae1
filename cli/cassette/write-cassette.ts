// `lbsync doctor --record FILE`: the run's exchanges with the Scaleway API, scrubbed (scrub-exchanges.ts) with the run's
// own credentials, written as a go-vcr cassette (go-vcr.ts) that the emulator's replay test takes as it is
// (docs/emulator.md). The file is checked once more as written, every scalar as YAML reads it: a secret of the run
// found then fails the command and no file is kept. It is written privately (mode 0600, renamed into place: never
// through a link).
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import type { RecordedExchange } from '../adapters/http-recorder';
import type { Scrubber } from '../../shared/outbound/scrub';
import { CliError } from '../output';
import { isSymbolicLink, SymbolicLinkRefused, writePrivateFile } from '../private-file';
import { goVcrCassette } from './go-vcr';
import { scrubExchanges } from './scrub-exchanges';

const LINK_FIX =
  'give the path of a regular file (or a new one): the cassette is written to a new file and renamed into place, never through a link';

/** Fails before the run, not after it, when the file could not be written. */
export function checkRecordPath(file: string): string {
  const path = resolve(file);
  const folder = dirname(path);
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new CliError('usage', `--record: the folder ${folder} does not exist`, 'give a file in an existing folder');
  if (isSymbolicLink(path)) throw new CliError('usage', `--record: ${path} is a symbolic link`, LINK_FIX);
  if (existsSync(path) && !statSync(path).isFile())
    throw new CliError('usage', `--record: ${path} is not a file`, 'give the path of a file to create or overwrite');
  return path;
}

/** Whether a cassette's text holds a secret the scrubber knows: as written, or in any scalar as YAML reads it back. */
export function cassetteHoldsSecret(text: string, scrubber: Scrubber): boolean {
  if (scrubber.holdsSecret(text)) return true;
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) {
        strings.push(key);
        walk(child);
      }
  };
  walk(parse(text));
  return strings.some((value) => scrubber.holdsSecret(value));
}

/** The check a cassette passes as written: no credential of the run in it, else record_failed (naming none). */
export function noCredentialIn(path: string, scrubber: Scrubber): (written: string) => void {
  return (written) => {
    if (cassetteHoldsSecret(written, scrubber))
      throw new CliError(
        'record_failed',
        `--record: a credential of this run is still in the recording after scrubbing; nothing was written to ${path}`,
        'report it (without the file): the scrubber missed a form of the key; run without --record meanwhile',
      );
  };
}

/** Writes the cassette (replacing the file); answers how many interactions it holds. */
export function writeCassette(
  path: string,
  exchanges: readonly RecordedExchange[],
  options: { keepIds: boolean; scrubber: Scrubber },
): number {
  const scrubbed = scrubExchanges(exchanges, options);
  try {
    writePrivateFile(path, goVcrCassette(scrubbed), noCredentialIn(path, options.scrubber));
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (error instanceof SymbolicLinkRefused) throw new CliError('usage', `--record: ${path} is a symbolic link`, LINK_FIX);
    throw new CliError('record_failed', `--record: could not write ${path}: ${(error as Error).message}`, 'give a file you may write');
  }
  return scrubbed.length;
}
