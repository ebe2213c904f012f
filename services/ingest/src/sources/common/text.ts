/** Text input of a streaming parser: a Readable, a fetch body, or any (async) iterable of chunks. */
export type TextInput = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

/**
 * Splits a chunk stream into lines (LF or CRLF, the terminator removed), yielding the complete
 * lines of each chunk as one array: one async step per chunk, a plain loop per line. Holds at most
 * one chunk and one partial line. Bytes are decoded as UTF-8 across chunk boundaries; a leading
 * BOM is dropped.
 */
export async function* readLineBatches(input: TextInput): AsyncGenerator<string[]> {
  const decoder = new TextDecoder('utf-8');
  let rest = '';
  let first = true;
  for await (const chunk of input) {
    let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (rest.length > 0) text = rest + text;
    const lines: string[] = [];
    let start = 0;
    let nl = text.indexOf('\n', start);
    while (nl !== -1) {
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      lines.push(text.slice(start, end));
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    rest = start === 0 ? text : text.slice(start);
    if (lines.length > 0) yield lines;
  }
  rest += decoder.decode();
  if (rest.endsWith('\r')) rest = rest.slice(0, -1);
  if (rest.length > 0) yield [rest];
}

/** The lines of readLineBatches one by one. */
export async function* readLines(input: TextInput): AsyncGenerator<string> {
  for await (const lines of readLineBatches(input)) yield* lines;
}

/** Reads a whole (small, bounded) input into one string: for API pages, never for files. */
export async function readAll(input: TextInput): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let out = '';
  for await (const chunk of input) out += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  return out + decoder.decode();
}
