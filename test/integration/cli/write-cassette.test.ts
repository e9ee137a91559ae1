// What `lbsync doctor --record` leaves on disk: a file of mode 0600 renamed into place (never written through a link),
// and none at all when the file as written still holds a credential of the run. On a temporary folder.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cassetteHoldsSecret, noCredentialIn, writeCassette } from '../../../cli/cassette/write-cassette';
import { SymbolicLinkRefused, writePrivateFile } from '../../../cli/private-file';
import type { RecordedExchange } from '../../../cli/adapters/http-recorder';
import { createScrubber } from '../../../shared/outbound/scrub';

const ACCESS_KEY = 'SCWQ1W2E3R4T5Y6U7I8O';
const SECRET_KEY = '7d4c2a1e-93b0-4f5e-8a61-0c2f9e8b7a55';
const scrubber = createScrubber([ACCESS_KEY, SECRET_KEY]);
const folder = () => mkdtempSync(join(tmpdir(), 'lbsync-cassette-'));

const listServers: RecordedExchange = {
  method: 'GET',
  url: 'https://api.scaleway.com/instance/v1/zones/fr-par-1/servers',
  requestHeaders: [['accept', 'application/json']],
  requestBody: '',
  status: 200,
  statusText: 'OK',
  responseHeaders: [['content-type', 'application/json']],
  responseBody: '{"servers":[],"total_count":0}',
  durationMs: 3,
};

describe('writePrivateFile', () => {
  it('replaces an existing file with one of mode 0600 (a 0666 file does not stay 0666)', () => {
    const path = join(folder(), 'doctor.cassette.yaml');
    writeFileSync(path, 'old');
    chmodSync(path, 0o666);
    writePrivateFile(path, 'new');
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('refuses a link to another file and leaves that file as it was', () => {
    const dir = folder();
    const other = join(dir, 'precious.txt');
    writeFileSync(other, 'keep me');
    symlinkSync(other, join(dir, 'link.yaml'));
    expect(() => writePrivateFile(join(dir, 'link.yaml'), 'cassette')).toThrow(SymbolicLinkRefused);
    expect(readFileSync(other, 'utf8')).toBe('keep me');
    expect(readdirSync(dir).sort()).toEqual(['link.yaml', 'precious.txt']);
  });

  it('refuses a dangling link: its target is not created', () => {
    const dir = folder();
    symlinkSync(join(dir, 'target.yaml'), join(dir, 'dangling.yaml'));
    expect(() => writePrivateFile(join(dir, 'dangling.yaml'), 'cassette')).toThrow(SymbolicLinkRefused);
    expect(readdirSync(dir)).toEqual(['dangling.yaml']);
  });

  it('a check that refuses what was written leaves no file, not even the temporary one', () => {
    const dir = folder();
    const refused = new Error('refused');
    expect(() =>
      writePrivateFile(join(dir, 'doctor.cassette.yaml'), 'written', (text) => {
        expect(text).toBe('written');
        throw refused;
      }),
    ).toThrow(refused);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('writeCassette', () => {
  it('writes the cassette, mode 0600, when no credential of the run is in it', () => {
    const path = join(folder(), 'doctor.cassette.yaml');
    expect(writeCassette(path, [listServers], { keepIds: true, scrubber })).toBe(1);
    expect(readFileSync(path, 'utf8')).toContain('version: 2');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('a link is a usage error naming the path, and nothing is written through it', () => {
    const dir = folder();
    symlinkSync(join(dir, 'elsewhere.yaml'), join(dir, 'doctor.cassette.yaml'));
    expect(() => writeCassette(join(dir, 'doctor.cassette.yaml'), [listServers], { keepIds: true, scrubber })).toThrow(
      expect.objectContaining({ code: 'usage', message: expect.stringContaining('is a symbolic link') }),
    );
    expect(readdirSync(dir)).toEqual(['doctor.cassette.yaml']);
  });
});

describe('cassetteHoldsSecret: the file checked once more, as written and as YAML reads it', () => {
  it('finds a key however the text writes it, and in a scalar only YAML puts together (a folded double-quoted line)', () => {
    expect(cassetteHoldsSecret(`body: '${ACCESS_KEY.toLowerCase()}'\n`, scrubber)).toBe(true);
    expect(cassetteHoldsSecret(`body: "\\x53CW${ACCESS_KEY.slice(3)}"\n`, scrubber)).toBe(true);
    // A YAML escaped line break joins the two halves: no text search sees the key, the YAML reader does.
    const folded = `body: "${SECRET_KEY.slice(0, 18)}\\\n    ${SECRET_KEY.slice(18)}"\n`;
    expect(scrubber.holdsSecret(folded)).toBe(false);
    expect(cassetteHoldsSecret(folded, scrubber)).toBe(true);
    expect(cassetteHoldsSecret('body: "[redacted]"\n', scrubber)).toBe(false);
  });

  it('a cassette whose scalars hold a key is refused with record_failed, never naming it, and no file is left', () => {
    // Only what scrubbing cannot reach gets here: writeCassette's own check, driven with such a text.
    const dir = folder();
    const path = join(dir, 'doctor.cassette.yaml');
    let thrown: unknown;
    try {
      writePrivateFile(path, `body: "${SECRET_KEY.slice(0, 18)}\\\n    ${SECRET_KEY.slice(18)}"\n`, noCredentialIn(path, scrubber));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'record_failed' });
    expect(String((thrown as Error).message)).not.toContain(SECRET_KEY.slice(0, 8));
    expect(readdirSync(dir)).toEqual([]);
  });
});
