// Reads the files of a zip archive, as the Serverless Framework writes them (stored or deflated entries,
// sizes in the central directory; no zip64, no encryption: the archive is a few MB of bundles).
import { inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

/**
 * @param {Buffer} archive
 * @returns {Map<string, Buffer>} path in the archive -> uncompressed content (directories left out)
 */
export function readZip(archive) {
  const end = lastSignature(archive, END_OF_CENTRAL_DIRECTORY);
  const count = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  const files = new Map();
  for (let i = 0; i < count; i += 1) {
    if (archive.readUInt32LE(offset) !== CENTRAL_DIRECTORY_ENTRY) throw new Error(`zip: central directory entry ${i} is corrupt`);
    const method = archive.readUInt16LE(offset + 10);
    const compressedSize = archive.readUInt32LE(offset + 20);
    const nameLength = archive.readUInt16LE(offset + 28);
    const skip = nameLength + archive.readUInt16LE(offset + 30) + archive.readUInt16LE(offset + 32);
    const local = archive.readUInt32LE(offset + 42);
    const name = archive.toString('utf8', offset + 46, offset + 46 + nameLength);
    offset += 46 + skip;
    if (name.endsWith('/')) continue;
    if (archive.readUInt32LE(local) !== LOCAL_FILE_HEADER) throw new Error(`zip: local header of ${name} is corrupt`);
    const start = local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28);
    const data = archive.subarray(start, start + compressedSize);
    if (method === 0) files.set(name, data);
    else if (method === 8) files.set(name, inflateRawSync(data));
    else throw new Error(`zip: ${name} uses compression method ${method}, which this reader does not know`);
  }
  return files;
}

function lastSignature(archive, signature) {
  // The end record is the last 22 bytes, unless the archive carries a comment (at most 64 KiB).
  for (let at = archive.length - 22; at >= Math.max(0, archive.length - 22 - 0xffff); at -= 1) {
    if (archive.readUInt32LE(at) === signature) return at;
  }
  throw new Error('zip: no end of central directory record: not a zip archive');
}
