import { inflateRawSync } from 'node:zlib';

/** Limits on a zip container (an .xlsx, a zipped CSV): checked on the directory before any entry is inflated. */
export interface ZipLimits {
  /** Entries in the archive (the Pink Sheet has about 30). */
  maxEntries: number;
  /** Largest size one entry may declare, and inflate to (the Pink Sheet's prices sheet: about 4 MB). */
  maxEntryBytes: number;
  /** Sum of the sizes the entries declare. */
  maxUnzippedBytes: number;
}

/** Why a file is not a workbook we read: not a zip, a zip laid out in a way we refuse, or past a limit. */
export class ZipGuardError extends Error {
  override readonly name = 'ZipGuardError';
}

interface ZipEntry {
  name: string;
  method: number;
  compressed: number;
  size: number;
  /** Offset of the entry's local header, and of its data (after that header). */
  local: number;
  start: number;
}

/** A checked zip archive: its entry names, and each entry inflated on demand within its bound. */
export interface ZipArchive {
  readonly names: readonly string[];
  has(name: string): boolean;
  /** The inflated bytes of an entry (ZipGuardError when it inflates past its declared size). */
  read(name: string): Buffer;
  /** Bytes inflated so far, over every read: what the archive has cost (tests assert on it). */
  readonly inflatedBytes: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const ZIP64_LOCATOR = 0x07064b50;

/**
 * Opens a zip archive (an .xlsx) without trusting any one of its headers, refusing, before
 * anything is inflated: no end record, an end record with a comment that does not end the file, a
 * ZIP64 or multi-disk archive, a central directory that is not exactly the bytes from its offset to
 * the end record, a record count other than the end record's, more than `maxEntries` entries,
 * duplicate names (case folded, as OOXML part names are), data before the first local header
 * (prepended data), a local header that does not name its central record's entry, entries whose
 * data overlap or run into the central directory, encryption, a method other than stored and
 * deflate, an entry declaring more than `maxEntryBytes`, or more than `maxUnzippedBytes` in all.
 * `read` then inflates one entry with an output bound equal to its declared size, so a header that
 * lies is caught after at most that many bytes.
 */
export function openZip(bytes: Uint8Array, limits: ZipLimits): ZipArchive {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fail = (msg: string) => new ZipGuardError(msg);
  if (buf.length < 22 || buf.readUInt32LE(0) !== LOCAL) {
    // a local header later in the file: data was prepended (a self-extractor, or a file hiding another)
    if (buf.length >= 22 && buf.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04])) > 0)
      throw fail('the zip archive has data before its first entry (prepended data)');
    throw fail('not a zip archive (an .xlsx is one)');
  }
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd === -1) throw fail('not a complete zip archive: no end of central directory (truncated?)');
  if (eocd + 22 + buf.readUInt16LE(eocd + 20) !== buf.length)
    throw fail('the zip end record is not at the end of the file (data after it, or a forged record in its comment)');
  const disk = buf.readUInt16LE(eocd + 4);
  const cdDisk = buf.readUInt16LE(eocd + 6);
  const onDisk = buf.readUInt16LE(eocd + 8);
  const count = buf.readUInt16LE(eocd + 10);
  const cdSize = buf.readUInt32LE(eocd + 12);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (
    count === 0xffff ||
    cdOffset === 0xffffffff ||
    cdSize === 0xffffffff ||
    (eocd >= 20 && buf.readUInt32LE(eocd - 20) === ZIP64_LOCATOR)
  )
    throw fail('ZIP64 archives are not read');
  if (disk !== 0 || cdDisk !== 0 || onDisk !== count) throw fail('multi-disk zip archives are not read');
  if (count > limits.maxEntries)
    throw fail(`the archive has ${count} entries, more than the ${limits.maxEntries} read`);
  if (cdOffset + cdSize !== eocd)
    throw fail(
      `the zip central directory (offset ${cdOffset}, ${cdSize} bytes) does not end where the end record starts (${eocd})`,
    );

  // walk the central directory by bytes, from its offset to the end record: every record counted
  const entries: ZipEntry[] = [];
  const byName = new Map<string, ZipEntry>();
  const folded = new Set<string>();
  let total = 0;
  let at = cdOffset;
  while (at < eocd) {
    if (entries.length >= count)
      throw fail(`the zip central directory holds more records than the ${count} its end record declares`);
    if (at + 46 > eocd || buf.readUInt32LE(at) !== CENTRAL)
      throw fail(`a zip central directory record (at byte ${at}) is malformed`);
    const flags = buf.readUInt16LE(at + 8);
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const next = at + 46 + nameLen + extraLen + commentLen;
    if (next > eocd) throw fail(`a zip central directory record (at byte ${at}) runs past the directory`);
    const rawName = buf.subarray(at + 46, at + 46 + nameLen);
    const name = rawName.toString('utf8');
    at = next;
    if (folded.has(name.toLowerCase())) throw fail(`the archive holds two entries named ${name}`);
    folded.add(name.toLowerCase());
    if (flags & 1) throw fail(`zip entry ${name} is encrypted`);
    if (method !== 0 && method !== 8) throw fail(`zip entry ${name} uses compression method ${method}`);
    if (compressed === 0xffffffff || size === 0xffffffff) throw fail('ZIP64 archives are not read');
    if (size > limits.maxEntryBytes)
      throw fail(`zip entry ${name} declares ${size} bytes unpacked, more than the ${limits.maxEntryBytes} read`);
    if (method === 0 && compressed !== size) throw fail(`stored zip entry ${name} has inconsistent sizes`);
    total += size;
    if (total > limits.maxUnzippedBytes)
      throw fail(`the archive unpacks to more than the ${limits.maxUnzippedBytes} bytes read`);
    if (local + 30 > cdOffset || buf.readUInt32LE(local) !== LOCAL) throw fail(`zip entry ${name} has no local header`);
    const localNameLen = buf.readUInt16LE(local + 26);
    if (!buf.subarray(local + 30, local + 30 + localNameLen).equals(rawName))
      throw fail(`the local header of zip entry ${name} names another entry`);
    const start = local + 30 + localNameLen + buf.readUInt16LE(local + 28);
    if (start + compressed > cdOffset) throw fail(`zip entry ${name} runs into the central directory`);
    const entry: ZipEntry = { name, method, compressed, size, local, start };
    entries.push(entry);
    byName.set(name, entry);
  }
  if (entries.length !== count)
    throw fail(`the zip central directory holds ${entries.length} records, not the ${count} its end record declares`);

  // the entries' data, in file order, start at 0 and do not overlap
  const ordered = [...entries].sort((a, b) => a.local - b.local);
  if (count > 0 && ordered[0]!.local !== 0)
    throw fail('the zip archive has data before its first entry (prepended data)');
  for (let i = 1; i < ordered.length; i++) {
    const prev = ordered[i - 1]!;
    if (ordered[i]!.local < prev.start + prev.compressed)
      throw fail(`zip entries ${prev.name} and ${ordered[i]!.name} overlap`);
  }

  let inflated = 0;
  return {
    names: entries.map((e) => e.name),
    has: (name) => byName.has(name),
    get inflatedBytes() {
      return inflated;
    },
    read(name) {
      const e = byName.get(name);
      if (e === undefined) throw fail(`the archive has no ${name}`);
      const data = buf.subarray(e.start, e.start + e.compressed);
      if (e.method === 0) return Buffer.from(data);
      let out: Buffer;
      try {
        // never more than the declared size (itself within maxEntryBytes): a lying header stops here
        out = inflateRawSync(data, { maxOutputLength: Math.max(1, e.size) });
      } catch (err) {
        inflated += e.size;
        throw fail(`zip entry ${name} does not inflate to its declared ${e.size} bytes (${(err as Error).message})`);
      }
      inflated += out.length;
      if (out.length !== e.size)
        throw fail(`zip entry ${name} inflates to ${out.length} bytes, not the declared ${e.size}`);
      return out;
    },
  };
}
