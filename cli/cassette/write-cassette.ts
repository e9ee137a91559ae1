// `lbsync doctor --record FILE`: the run's exchanges with the Scaleway API, scrubbed (scrub-exchanges.ts), written
// as a go-vcr cassette (go-vcr.ts) that the emulator's replay test takes as it is (docs/emulator.md).
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { RecordedExchange } from '../../shared/adapters/http-recorder';
import { CliError } from '../output';
import { goVcrCassette } from './go-vcr';
import { scrubExchanges } from './scrub-exchanges';

/** Fails before the run, not after it, when the file could not be written. */
export function checkRecordPath(file: string): string {
  const path = resolve(file);
  const folder = dirname(path);
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new CliError('usage', `--record: the folder ${folder} does not exist`, 'give a file in an existing folder');
  if (existsSync(path) && !statSync(path).isFile())
    throw new CliError('usage', `--record: ${path} is not a file`, 'give the path of a file to create or overwrite');
  return path;
}

/** Writes the cassette (overwriting the file); answers how many interactions it holds. */
export function writeCassette(path: string, exchanges: readonly RecordedExchange[], options: { keepIds: boolean }): number {
  const scrubbed = scrubExchanges(exchanges, options);
  try {
    writeFileSync(path, goVcrCassette(scrubbed), { mode: 0o600 });
  } catch (error) {
    throw new CliError('record_failed', `--record: could not write ${path}: ${(error as Error).message}`, 'give a file you may write');
  }
  return scrubbed.length;
}
