import { inflateRawSync } from 'node:zlib';

/** Limits on the zip container of an .xlsx before any xlsx reader sees it. */
export interface ZipLimits {
  /** Entries in the archive (the Pink Sheet has about 30). */
  maxEntries: number;
  /** Sum of the entries' uncompressed sizes (the Pink Sheet: about 4 MB). */
  maxUnzippedBytes: number;
}

/** Why a file is not a workbook we read: not a zip, or a zip past the limits (a zip bomb). */
export class ZipGuardError extends Error {
  override readonly name = 'ZipGuardError';
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * Checks a zip archive (an .xlsx) without trusting its headers: reads the central directory,
 * refuses ZIP64, encryption, methods other than stored and deflate, more than `maxEntries`
 * entries or more than `maxUnzippedBytes` in all, and inflates every entry with an output bound
 * equal to its declared size, so a header that lies about a size is caught before an xlsx reader
 * (which inflates without a bound) runs. Costs one extra inflate of the archive.
 */
export function checkZipBounds(bytes: Uint8Array, limits: ZipLimits): void {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 22 || buf.readUInt32LE(0) !== LOCAL) throw new ZipGuardError('not a zip archive (an .xlsx is one)');
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd === -1) throw new ZipGuardError('not a complete zip archive: no end of central directory (truncated?)');
  const entries = buf.readUInt16LE(eocd + 10);
  const cdSize = buf.readUInt32LE(eocd + 12);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (entries === 0xffff || cdOffset === 0xffffffff) throw new ZipGuardError('ZIP64 archives are not read');
  if (entries > limits.maxEntries)
    throw new ZipGuardError(`the archive has ${entries} entries, more than the ${limits.maxEntries} read`);
  if (cdOffset + cdSize > eocd) throw new ZipGuardError('the zip central directory lies outside the file');
  let at = cdOffset;
  let total = 0;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > eocd || buf.readUInt32LE(at) !== CENTRAL)
      throw new ZipGuardError('a zip central directory entry is malformed');
    const flags = buf.readUInt16LE(at + 8);
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLen);
    at += 46 + nameLen + extraLen + commentLen;
    if (flags & 1) throw new ZipGuardError(`zip entry ${name} is encrypted`);
    total += size;
    if (total > limits.maxUnzippedBytes)
      throw new ZipGuardError(`the archive unpacks to more than ${limits.maxUnzippedBytes} bytes`);
    if (local + 30 > buf.length || buf.readUInt32LE(local) !== LOCAL)
      throw new ZipGuardError(`zip entry ${name} has no local header`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    if (start + compressed > buf.length) throw new ZipGuardError(`zip entry ${name} runs past the end of the file`);
    const data = buf.subarray(start, start + compressed);
    if (method === 0) {
      if (compressed !== size) throw new ZipGuardError(`stored zip entry ${name} has inconsistent sizes`);
      continue;
    }
    if (method !== 8) throw new ZipGuardError(`zip entry ${name} uses compression method ${method}`);
    let out: Buffer;
    try {
      out = inflateRawSync(data, { maxOutputLength: Math.max(1, size) });
    } catch (err) {
      throw new ZipGuardError(
        `zip entry ${name} does not inflate to its declared ${size} bytes (${(err as Error).message})`,
      );
    }
    if (out.length !== size)
      throw new ZipGuardError(`zip entry ${name} inflates to ${out.length} bytes, not the declared ${size}`);
  }
}
