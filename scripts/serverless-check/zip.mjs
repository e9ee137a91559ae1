// Reads the files of a zip archive (the one `serverless package` writes) with yauzl.
import { buffer } from 'node:stream/consumers';
import yauzl from 'yauzl';

/**
 * @param {Buffer} archive
 * @returns {Promise<Map<string, Buffer>>} path in the archive -> uncompressed content (directories left out)
 */
export async function readZip(archive) {
  const zipfile = await yauzl.fromBufferPromise(archive);
  const files = new Map();
  for await (const entry of zipfile.eachEntry()) {
    if (entry.fileName.endsWith('/')) continue;
    files.set(entry.fileName, await buffer(await zipfile.openReadStreamPromise(entry)));
  }
  return files;
}
