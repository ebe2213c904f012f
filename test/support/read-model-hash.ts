// A fingerprint of the read models (catalog, series, cot, supply_demand) for comparing a faulted run with a clean
// one: independent of document order and of where each document was written from (`_meta`:
// stream positions, revisions, parts), so two databases built from the same facts hash the same
// even when their events were applied in another order, redelivered, or republished at new
// stream positions.
import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { COLLECTIONS, activeCollection, type ReadModelAliasDoc, type ReadModelName } from '@cds/read-models';
import { unpackReports } from '@cds/store';
import type { Db, Document } from 'mongodb';

export const READ_MODELS: readonly ReadModelName[] = ['catalog', 'series', 'cot', 'supply_demand'];

export interface CollectionFingerprint {
  /** The physical collection read (after following `read_model_aliases`). */
  collection: string;
  documents: number;
  hash: string;
}

export interface ReadModelFingerprint {
  /** Hash over the read models. */
  hash: string;
  models: Record<ReadModelName, CollectionFingerprint>;
  /** Sum of the series buckets' `count` (points stored). */
  seriesPoints: number;
  /** COT reports stored (the entries of the per-year buckets). */
  cotReports: number;
}

/** JSON with object keys sorted at every level (arrays keep their order: it is meaningful). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/**
 * A packed text of the FerretDB adapter (`*_json`: `z:` and deflated JSON, or plain JSON; libs/store
 * ferretdb-packing.ts) as the value it holds: its JSON keeps each object's key order, which depends
 * on how the projection built the object (a revision applied live or in a rebuild), not on what it says.
 */
function unpacked(text: string): unknown {
  const json = text.startsWith('z:') ? inflateRawSync(Buffer.from(text.slice(2), 'base64')).toString() : text;
  return JSON.parse(json) as unknown;
}

/** The document without its `_meta` (where it was written from, not what it says), packed texts unpacked. */
function content(doc: Document): Document {
  const { _meta: _ignored, ...rest } = doc;
  for (const [k, v] of Object.entries(rest)) if (k.endsWith('_json') && typeof v === 'string') rest[k] = unpacked(v);
  return rest;
}

function cotReportsIn(doc: Document): number {
  // Per-year buckets keep their reports packed (or, written before packing, in an array).
  return unpackReports(doc).length;
}

/** Fingerprints the read models of `db`, each read from the collection its alias points at. */
export async function readModelFingerprint(db: Db): Promise<ReadModelFingerprint> {
  const aliases = await db.collection<ReadModelAliasDoc>(COLLECTIONS.aliases).find({}).toArray();
  const models = {} as Record<ReadModelName, CollectionFingerprint>;
  let seriesPoints = 0;
  let cotReports = 0;
  const all = createHash('sha256');
  for (const name of READ_MODELS) {
    const collection = activeCollection(
      name,
      aliases.find((a) => a._id === name),
    );
    // Read everything and sort here: FerretDB sorts in its own process anyway, and `_id` is unique.
    const docs = await db.collection(collection).find({}).toArray();
    const lines = docs.map((d) => canonicalJson(content(d))).sort();
    const h = createHash('sha256');
    for (const line of lines) h.update(line).update('\n');
    const hash = h.digest('hex');
    models[name] = { collection, documents: docs.length, hash };
    all.update(`${name}:${hash}\n`);
    if (name === 'series') for (const d of docs) seriesPoints += typeof d.count === 'number' ? d.count : 0;
    if (name === 'cot') for (const d of docs) cotReports += cotReportsIn(d);
  }
  return { hash: all.digest('hex'), models, seriesPoints, cotReports };
}
