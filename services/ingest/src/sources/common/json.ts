import type { RejectedItem } from '../types.ts';
import { InputBoundError, MAX_JSON_ELEMENT_CHARS } from './bounds.ts';
import { normalizeHeader } from './csv.ts';
import { rejected } from './records.ts';
import type { ParseStats } from './stats.ts';
import type { TextInput } from './text.ts';

export type JsonElement = { index: number; value: Record<string, unknown> } | { index: number; error: string };

/**
 * Streams the object elements of one JSON array without holding the document: the array under
 * the first property named `arrayKey` at any depth (`{"data":[...]}`, `{"response":{"data":[...]}}`),
 * or the root array when `arrayKey` is null (Socrata). Each element is parsed on its own; a bad
 * element or a truncated document yields an `error` element and the scan goes on where it can.
 * An element, or a string outside the elements, longer than `maxElementChars` (default
 * MAX_JSON_ELEMENT_CHARS) stops the scan with an InputBoundError: nothing larger is ever held.
 */
export async function* streamJsonArrayObjects(
  input: TextInput,
  arrayKey: string | null,
  maxElementChars: number = MAX_JSON_ELEMENT_CHARS,
): AsyncGenerator<JsonElement> {
  const decoder = new TextDecoder('utf-8');
  let depth = 0;
  let inString = false;
  let escape = false;
  let stringStart = -1;
  let stringParts = '';
  let lastString: string | undefined;
  let currentKey: string | undefined;
  let targetDepth = -1; // depth inside the target array
  let found = false;
  let capturing = false;
  let captureParts = '';
  let captureStart = 0;
  let index = 0;
  let sawAny = false;

  for await (const raw of input) {
    const text = typeof raw === 'string' ? raw : decoder.decode(raw, { stream: true });
    if (capturing) captureStart = 0;
    if (inString) stringStart = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (escape) escape = false;
        else if (c === 92) escape = true;
        else if (c === 34) {
          inString = false;
          if (!capturing) lastString = stringParts + text.slice(stringStart, i);
          stringParts = '';
        }
        continue;
      }
      switch (c) {
        case 34: // "
          inString = true;
          stringStart = i + 1;
          stringParts = '';
          break;
        case 58: // :
          if (!capturing) currentKey = lastString;
          break;
        case 44: // ,
          if (!capturing) currentKey = undefined;
          break;
        case 123: // {
          if (!capturing && targetDepth !== -1 && depth === targetDepth) {
            capturing = true;
            captureParts = '';
            captureStart = i;
          }
          depth++;
          if (!capturing) currentKey = undefined;
          break;
        case 91: // [
          depth++;
          sawAny = true;
          if (!capturing && !found && targetDepth === -1) {
            if ((arrayKey === null && depth === 1) || (arrayKey !== null && currentKey === arrayKey)) {
              targetDepth = depth;
              found = true;
            }
          }
          break;
        case 125: // }
          depth--;
          if (capturing && depth === targetDepth) {
            const textOf = captureParts + text.slice(captureStart, i + 1);
            if (textOf.length > maxElementChars)
              throw new InputBoundError(
                `JSON element ${index + 1} is longer than the ${maxElementChars} characters read (not one record?)`,
              );
            capturing = false;
            captureParts = '';
            yield parseElement(textOf, index++);
          }
          break;
        case 93: // ]
          if (!capturing && depth === targetDepth) targetDepth = -1;
          depth--;
          break;
        default:
          break;
      }
    }
    if (capturing) {
      captureParts += text.slice(captureStart);
      if (captureParts.length > maxElementChars)
        throw new InputBoundError(
          `JSON element ${index + 1} is longer than the ${maxElementChars} characters read (not one record?)`,
        );
    }
    if (inString && !capturing) {
      stringParts += text.slice(stringStart);
      if (stringParts.length > maxElementChars)
        throw new InputBoundError(`a JSON string is longer than the ${maxElementChars} characters read`);
    }
  }
  if (capturing || depth !== 0 || inString) {
    yield { index, error: 'truncated JSON document' };
  } else if (!found) {
    yield {
      index,
      error:
        sawAny || arrayKey === null
          ? `no array "${arrayKey ?? '(root)'}" in document`
          : `no "${arrayKey}" array in document`,
    };
  }
}

function parseElement(text: string, index: number): JsonElement {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return { index, error: 'element is not an object' };
    }
    return { index, value: value as Record<string, unknown> };
  } catch (err) {
    return { index, error: `invalid JSON element: ${(err as Error).message}` };
  }
}

/** One object of a JSON source's array and its 1-based number, the `line` of its rejections. */
export interface JsonRow {
  kind: 'row';
  line: number;
  value: Record<string, unknown>;
}

/**
 * The rows of a JSON source (the array streamJsonArrayObjects finds), numbered from `offset` + 1
 * (the page's place in the whole result) and counted in `stats.rows`; an element that does not
 * parse comes as its rejection.
 */
export async function* readJsonRows(
  input: TextInput,
  arrayKey: string | null,
  options: { file: string; stats?: ParseStats | undefined; offset?: number | undefined },
): AsyncGenerator<JsonRow | RejectedItem> {
  const { file, stats } = options;
  const offset = options.offset ?? 0;
  for await (const el of streamJsonArrayObjects(input, arrayKey)) {
    const line = offset + el.index + 1;
    if ('error' in el) {
      yield rejected(file, line, el.error, stats);
      continue;
    }
    if (stats) stats.rows++;
    yield { kind: 'row', line, value: el.value };
  }
}

/** A JSON row's values by normalizeHeader of their names, so JSON and CSV spellings line up. */
export function byHeaderName(row: Record<string, unknown>): Map<string, unknown> {
  return new Map(Object.entries(row).map(([k, v]) => [normalizeHeader(k), v]));
}
