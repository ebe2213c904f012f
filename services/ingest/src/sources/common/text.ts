import { InputBoundError, MAX_LINE_CHARS } from './bounds.ts';

/** Text input of a streaming parser: a Readable, a fetch body, or any (async) iterable of chunks. */
export type TextInput = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

/**
 * Splits a chunk stream into lines (LF or CRLF, the terminator removed), yielding the complete
 * lines of each chunk as one array: one async step per chunk, a plain loop per line. Holds at most
 * one chunk and one partial line. Bytes are decoded as UTF-8 across chunk boundaries; a leading
 * BOM is dropped. A line longer than `maxLineChars` (default MAX_LINE_CHARS) stops the read with an
 * InputBoundError: a file without line breaks is never held whole.
 */
export async function* readLineBatches(
  input: TextInput,
  maxLineChars: number = MAX_LINE_CHARS,
): AsyncGenerator<string[]> {
  const decoder = new TextDecoder('utf-8');
  let rest = '';
  let first = true;
  let lineNo = 0;
  const tooLong = (at: number) =>
    new InputBoundError(`line ${at} is longer than the ${maxLineChars} characters read (not a line-based file?)`);
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
      if (end - start > maxLineChars) throw tooLong(lineNo + lines.length + 1);
      lines.push(text.slice(start, end));
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    rest = start === 0 ? text : text.slice(start);
    lineNo += lines.length;
    if (rest.length > maxLineChars) throw tooLong(lineNo + 1);
    if (lines.length > 0) yield lines;
  }
  rest += decoder.decode();
  if (rest.length > maxLineChars) throw tooLong(lineNo + 1);
  if (rest.endsWith('\r')) rest = rest.slice(0, -1);
  if (rest.length > 0) yield [rest];
}

/** The lines of readLineBatches one by one. */
export async function* readLines(input: TextInput, maxLineChars: number = MAX_LINE_CHARS): AsyncGenerator<string> {
  for await (const lines of readLineBatches(input, maxLineChars)) yield* lines;
}
