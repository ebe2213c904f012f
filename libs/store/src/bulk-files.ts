import type { BulkFile } from '@cds/contracts';
import { Binary, type Db } from 'mongodb';
import type { DeadlineOptions } from './deadline.ts';
import { mapStoreError } from './errors.ts';
import { runner } from './read-models/run.ts';
import type { StoreCall } from './read-models/port.ts';

/** The collection holding the bulk files' chunks and their manifest (one document, `_id: 'manifest'`). */
export const BULK_FILES_COLLECTION = 'bulk_files';
/** Largest chunk stored: far below a document's 16 MiB, and what one read costs a query replica. */
export const BULK_CHUNK_BYTES = 1024 * 1024;
const MANIFEST_ID = 'manifest';

/** The manifest document: the files of the current generation (and the previous one, kept for downloads under way). */
export interface BulkManifest {
  generation: string;
  generated_at: string;
  files: BulkFile[];
}

interface ManifestDoc extends BulkManifest {
  _id: string;
  previous_generation?: string;
}

interface ChunkDoc {
  _id: string;
  generation: string;
  file: string;
  n: number;
  data: Binary;
}

type AnyDoc = ManifestDoc | ChunkDoc;

function chunkId(generation: string, file: string, n: number): string {
  return `${generation}:${file}:${n}`;
}

/**
 * The bulk files in MongoDB (or FerretDB), so every query replica serves the same bytes. A job
 * writes a new generation's chunks, then swaps the manifest to it in one write, then drops the
 * chunks of generations older than the previous one (a download of the previous generation that
 * started before the swap can still finish). Chunks are read by `_id` only, which FerretDB answers
 * without a scan. Every operation has a deadline (`runner`).
 */
export interface BulkFileStore {
  /** Stores the files' bytes under a new generation and makes it current. */
  publish(
    files: readonly { entry: BulkFile; bytes: Uint8Array }[],
    generatedAt: string,
    call?: StoreCall,
  ): Promise<void>;
  /** The current manifest, or null before the first run. */
  manifest(call?: StoreCall): Promise<BulkManifest | null>;
  /** Chunk `n` of a file of a generation (BULK_CHUNK_BYTES each, the last shorter), or null when gone. */
  chunk(generation: string, file: string, n: number, call?: StoreCall): Promise<Uint8Array | null>;
}

export function createBulkFileStore(db: Db, opts: { timeoutMs?: number } = {}): BulkFileStore {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const coll = db.collection<AnyDoc>(BULK_FILES_COLLECTION);
  async function run<T>(what: string, call: StoreCall | undefined, op: (o: DeadlineOptions) => Promise<T>): Promise<T> {
    try {
      return await runner(timeoutMs, call)(what, op);
    } catch (err) {
      throw mapStoreError(err);
    }
  }

  return {
    async publish(files, generatedAt, call) {
      const generation = `${Date.parse(generatedAt).toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
      for (const { entry, bytes } of files) {
        for (let n = 0, at = 0; at < bytes.length || n === 0; n++, at += BULK_CHUNK_BYTES) {
          const doc: ChunkDoc = {
            _id: chunkId(generation, entry.file, n),
            generation,
            file: entry.file,
            n,
            data: new Binary(bytes.subarray(at, Math.min(at + BULK_CHUNK_BYTES, bytes.length))),
          };
          await run('write bulk file chunk', call, () => coll.insertOne(doc));
        }
      }
      const previous = await run<ManifestDoc | null>('read bulk manifest', call, ({ maxTimeMS, signal }) =>
        coll.findOne<ManifestDoc>({ _id: MANIFEST_ID }, { maxTimeMS, signal }),
      );
      const manifest: ManifestDoc = {
        _id: MANIFEST_ID,
        generation,
        generated_at: generatedAt,
        files: [...files.map((f) => f.entry)],
        ...(previous === null ? {} : { previous_generation: previous.generation }),
      };
      await run('swap bulk manifest', call, () => coll.replaceOne({ _id: MANIFEST_ID }, manifest, { upsert: true }));
      const keep = previous === null ? [generation] : [generation, previous.generation];
      await run('drop old bulk file chunks', call, () =>
        coll.deleteMany({ _id: { $ne: MANIFEST_ID }, generation: { $nin: keep } }),
      );
    },

    async manifest(call) {
      const doc = await run<ManifestDoc | null>('read bulk manifest', call, ({ maxTimeMS, signal }) =>
        coll.findOne<ManifestDoc>({ _id: MANIFEST_ID }, { maxTimeMS, signal }),
      );
      if (doc === null) return null;
      return { generation: doc.generation, generated_at: doc.generated_at, files: doc.files };
    },

    async chunk(generation, file, n, call) {
      const doc = await run<AnyDoc | null>('read bulk file chunk', call, ({ maxTimeMS, signal }) =>
        coll.findOne<AnyDoc>({ _id: chunkId(generation, file, n) }, { maxTimeMS, signal }),
      );
      if (doc === null || !('data' in doc)) return null;
      return doc.data.buffer.subarray(0, doc.data.length());
    },
  };
}
