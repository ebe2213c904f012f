/**
 * The one XML tokenizer of the ingest: a small linear scanner for the XML agencies publish (the
 * parts of an .xlsx workbook, the WASDE report files). It builds no tree and expands no entity
 * beyond the five predefined ones: a DOCTYPE is refused, element nesting, attribute counts and
 * lengths are bounded, so a hostile document (entity expansion, huge attributes, deep nesting) is
 * refused with an XmlError in time linear in its length.
 */

/** The document is malformed or past one of the scanner's bounds: nothing of it is trusted. */
export class XmlError extends Error {
  override readonly name = 'XmlError';
}

export type XmlAttrs = Record<string, string>;

export interface XmlHandler {
  open(name: string, attrs: XmlAttrs): void;
  close(name: string): void;
  /** Raw character data (entities not yet decoded). */
  text(raw: string): void;
}

/** The bounds a scan holds the document to. */
export interface XmlLimits {
  /** Deepest element nesting. Default 64. */
  maxDepth?: number;
  /** Most attributes on one element. Default 256. */
  maxAttributes?: number;
  /** Longest attribute value, in characters. Default 64 Ki. */
  maxAttributeChars?: number;
}

export const DEFAULT_XML_LIMITS: Required<XmlLimits> = {
  maxDepth: 64,
  maxAttributes: 256,
  maxAttributeChars: 64 * 1024,
};

/** `x:row` → `row`: element names are compared without their prefix. */
export const localName = (name: string) => {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
};

/** Decodes the five XML entities and character references; anything else is refused (there is no DTD). */
export function decodeXml(s: string): string {
  let amp = s.indexOf('&');
  if (amp === -1) return s;
  let out = '';
  let from = 0;
  while (amp !== -1) {
    const semi = s.indexOf(';', amp);
    if (semi === -1 || semi - amp > 10) throw new XmlError('malformed XML: a bare "&"');
    const ref = s.slice(amp + 1, semi);
    out += s.slice(from, amp) + entity(ref);
    from = semi + 1;
    amp = s.indexOf('&', from);
  }
  return out + s.slice(from);
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function entity(ref: string): string {
  const named = Object.hasOwn(ENTITIES, ref) ? ENTITIES[ref] : undefined;
  if (named !== undefined) return named;
  if (/^#[0-9]{1,7}$/.test(ref) || /^#x[0-9a-fA-F]{1,6}$/.test(ref)) {
    const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    if (code > 0x10ffff) throw new XmlError(`malformed XML: character reference &${ref};`);
    return String.fromCodePoint(code);
  }
  throw new XmlError(`malformed XML: unknown entity &${ref};`);
}

function parseAttrs(body: string, from: number, limits: Required<XmlLimits>): XmlAttrs {
  const attrs: XmlAttrs = Object.create(null) as XmlAttrs;
  const n = body.length;
  let count = 0;
  let i = from;
  for (;;) {
    while (i < n && body.charCodeAt(i) <= 32) i++;
    if (i >= n) return attrs;
    const eq = body.indexOf('=', i);
    if (eq === -1) throw new XmlError('malformed XML: an attribute without a value');
    const name = body.slice(i, eq).trim();
    let q = eq + 1;
    while (q < n && body.charCodeAt(q) <= 32) q++;
    const quote = body[q];
    if (quote !== '"' && quote !== "'") throw new XmlError('malformed XML: an unquoted attribute');
    const end = body.indexOf(quote, q + 1);
    if (end === -1) throw new XmlError('malformed XML: an unterminated attribute');
    if (++count > limits.maxAttributes)
      throw new XmlError(`an element carries more than ${limits.maxAttributes} attributes`);
    if (end - q - 1 > limits.maxAttributeChars)
      throw new XmlError(
        `attribute ${name.slice(0, 40)} is longer than the ${limits.maxAttributeChars} characters read`,
      );
    attrs[name] = body.slice(q + 1, end);
    i = end + 1;
  }
}

/** The end of the tag opened at `lt`: the first ">" outside a quoted attribute value (n when none). */
function tagEnd(text: string, lt: number): number {
  const n = text.length;
  let quote = 0;
  for (let j = lt + 1; j < n; j++) {
    const ch = text.charCodeAt(j);
    if (quote !== 0) {
      if (ch === quote) quote = 0;
    } else if (ch === 34 || ch === 39) quote = ch;
    else if (ch === 62) return j;
  }
  return n;
}

/** Skips a comment, CDATA section or processing instruction at `lt`, handing CDATA over as text; the index after it. */
function skipSpecial(text: string, lt: number, inElement: boolean, handler: XmlHandler): number {
  const malformed = (what: string) => new XmlError(`malformed XML: ${what}`);
  if (text.charCodeAt(lt + 1) === 63 /* ? */) {
    const end = text.indexOf('?>', lt + 2);
    if (end === -1) throw malformed('an unterminated processing instruction');
    return end + 2;
  }
  if (text.startsWith('<!--', lt)) {
    const end = text.indexOf('-->', lt + 4);
    if (end === -1) throw malformed('an unterminated comment');
    return end + 3;
  }
  if (text.startsWith('<![CDATA[', lt)) {
    const end = text.indexOf(']]>', lt + 9);
    if (end === -1) throw malformed('an unterminated CDATA section');
    // CDATA is literal: re-encode its "&" and "<" so the handler's decodeXml gives them back
    if (inElement)
      handler.text(
        text
          .slice(lt + 9, end)
          .replace(/&/g, '&amp;')
          .replace(/</g, '&lt;'),
      );
    return end + 3;
  }
  throw new XmlError('a DOCTYPE or entity declaration is not read');
}

/**
 * Scans an XML document once, left to right, calling `handler` for each element and text run:
 * time linear in its length, nesting, attributes and their lengths within `limits`, open and close
 * tags matched. Comments and processing instructions are skipped, CDATA is text, and a DOCTYPE
 * (the only way to entities beyond the five predefined ones) is refused.
 */
export function scanXml(text: string, handler: XmlHandler, limits: XmlLimits = {}): void {
  const bounds = { ...DEFAULT_XML_LIMITS, ...limits };
  const n = text.length;
  const stack: string[] = [];
  const malformed = (what: string) => new XmlError(`malformed XML: ${what}`);
  let i = 0;
  while (i < n) {
    const lt = text.indexOf('<', i);
    if (lt === -1) {
      if (stack.length > 0 && i < n) handler.text(text.slice(i));
      break;
    }
    if (lt > i && stack.length > 0) handler.text(text.slice(i, lt));
    const c = text.charCodeAt(lt + 1);
    if (c === 63 /* ? */ || c === 33 /* ! */) {
      i = skipSpecial(text, lt, stack.length > 0, handler);
      continue;
    }
    const j = tagEnd(text, lt);
    if (j >= n) throw malformed('an unterminated tag');
    if (c === 47 /* / */) {
      const name = localName(text.slice(lt + 2, j).trim());
      if (stack.pop() !== name) throw malformed(`</${name}> closes no open <${name}>`);
      handler.close(name);
    } else {
      const selfClosing = text.charCodeAt(j - 1) === 47;
      const body = text.slice(lt + 1, selfClosing ? j - 1 : j);
      let k = 0;
      while (k < body.length && body.charCodeAt(k) > 32) k++;
      const name = localName(body.slice(0, k));
      if (name === '') throw malformed('a tag without a name');
      handler.open(name, parseAttrs(body, k, bounds));
      if (selfClosing) handler.close(name);
      else {
        if (stack.length >= bounds.maxDepth) throw malformed(`elements nested deeper than ${bounds.maxDepth}`);
        stack.push(name);
      }
    }
    i = j + 1;
  }
  if (stack.length > 0) throw malformed(`<${stack.at(-1)}> is never closed`);
}
