import type { SourceName } from '../types.ts';

/**
 * A source file past one of its bounds (its size, a line, a JSON element): not the file it claims
 * to be. The run stops with this message (exit 1 in the CLI); nothing past the bound is read.
 */
export class InputBoundError extends Error {
  override readonly name = 'InputBoundError';
}

/** Longest line a line-based parser reads (the longest real one, a CFTC disaggregated row, is ~2 KB). */
export const MAX_LINE_CHARS = 64 * 1024;
/** Longest JSON array element read (the largest real ones, NASS and CFTC rows, are ~1-3 KB). */
export const MAX_JSON_ELEMENT_CHARS = 1024 * 1024;

const MiB = 1024 * 1024;

/**
 * Largest file `ingest backfill --source <s> --file` reads, fitted to the real files with margin
 * (docs/sources.md "What an import refuses"): every parser streams, so the size bounds the time
 * of a run, not its memory. A year of the CFTC legacy text file is ~20 MB, the 1986-2016 history
 * a few hundred MB; an EIA history CSV under 1 MB; a Quick Stats CSV export is capped at 50,000
 * rows (~30 MB); an AMS answer a few MB (read whole: JSON.parse); an OHLCV daily history a few MB;
 * the Pink Sheet under 1 MB (its own bounds: worldbank/parse.ts PINK_SHEET_LIMITS).
 */
export const SOURCE_FILE_MAX_BYTES: Readonly<Record<SourceName, number>> = {
  'cftc-legacy': 1024 * MiB,
  'cftc-disaggregated': 1024 * MiB,
  eia: 64 * MiB,
  nass: 256 * MiB,
  ams: 32 * MiB,
  ohlcv: 256 * MiB,
  worldbank: 8 * MiB,
};

/** The chunks of `input`, refusing (InputBoundError) once more than `maxBytes` have come. */
export async function* boundedChunks<T extends string | Uint8Array>(
  input: AsyncIterable<T> | Iterable<T>,
  maxBytes: number,
  what: string,
): AsyncGenerator<T> {
  let size = 0;
  for await (const chunk of input) {
    size += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (size > maxBytes) throw new InputBoundError(`${what} is larger than the ${maxBytes} bytes read`);
    yield chunk;
  }
}
