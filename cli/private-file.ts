// A file that may hold what must stay private (a recording of API traffic), written so that no one else reads it and
// nothing else is written: to a new file of mode 0600 beside it, created exclusively (never through a link), checked,
// then renamed into place. A rename replaces the name: a link at the path, or the file it pointed at, is never
// written through, and the mode an older file had is not kept.
import { randomBytes } from 'node:crypto';
import { lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Whether the path is a symbolic link, dangling or not. */
export function isSymbolicLink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
}

export class SymbolicLinkRefused extends Error {
  constructor(readonly path: string) {
    super(`${path} is a symbolic link`);
  }
}

/**
 * Writes `text` at `path`: into a new file (mode 0600, in the same folder), whose content as read back is handed to
 * `check` (which throws to refuse it: then no file is left), then renamed over `path`. Refuses a `path` that is a link.
 */
export function writePrivateFile(path: string, text: string, check: (written: string) => void = () => undefined): void {
  if (isSymbolicLink(path)) throw new SymbolicLinkRefused(path);
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    // wx: O_CREAT | O_EXCL, which never follows a link, dangling or not.
    writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
    check(readFileSync(temporary, 'utf8'));
    if (isSymbolicLink(path)) throw new SymbolicLinkRefused(path);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
