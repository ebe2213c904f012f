import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { boundedChunks } from './bounds.ts';
import { SourceOpenError } from './errors.ts';

/**
 * Reads a file as a stream of chunks, counting bytes for the progress bar. A file larger than
 * `maxBytes` is refused before it is read, and one that grows past it while read stops the run.
 */
export async function openFile(
  path: string,
  maxBytes: number,
  source: string,
): Promise<{ chunks: AsyncIterable<Uint8Array>; fraction: () => number }> {
  let size: number;
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new SourceOpenError(`${path} is not a file`);
    size = s.size;
    if (size > maxBytes)
      throw new SourceOpenError(
        `${path} is ${size} bytes, more than the ${maxBytes} read for --source ${source} (docs/sources.md "What an import refuses")`,
      );
  } catch (err) {
    if (err instanceof SourceOpenError) throw err;
    throw new SourceOpenError(
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(err)}`,
    );
  }
  let read = 0;
  const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      read += chunk.length;
      yield chunk;
    }
  }
  return { chunks: boundedChunks(chunks(), maxBytes, path), fraction: () => (size === 0 ? 1 : read / size) };
}
