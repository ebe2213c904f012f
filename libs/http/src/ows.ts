/**
 * Optional whitespace (RFC 9110 §5.6.3: spaces and horizontal tabs) around header values and list
 * elements, trimmed with index loops: a regex trim such as `s.replace(/^[ \t]+|[ \t]+$/g, '')` is
 * quadratic on `x<spaces>y` (the engine retries the trailing alternative from every space), and
 * request headers are client input.
 */

/** Whether a UTF-16 code is OWS: a space or a horizontal tab. */
export function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** `s` without the spaces and tabs at either end; one pass over each end, nothing else read. */
export function trimOws(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isOws(s.charCodeAt(start))) start++;
  while (end > start && isOws(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}
