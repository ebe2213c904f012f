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

/** A mebibyte, for the file bounds each source declares (`inputs[].file.maxBytes`). */
export const MiB = 1024 * 1024;

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
