import { describe, expect, it } from 'vitest';
import { decodeXml, scanXml, XmlError } from './xml.ts';

const noop = { open: () => undefined, close: () => undefined, text: () => undefined };

function tokens(xml: string): string[] {
  const out: string[] = [];
  scanXml(xml, {
    open: (name, attrs) =>
      out.push(
        `<${name}${Object.entries(attrs)
          .map(([k, v]) => ` ${k}=${decodeXml(v)}`)
          .join('')}>`,
      ),
    close: (name) => out.push(`</${name}>`),
    text: (raw) => out.push(decodeXml(raw)),
  });
  return out;
}

describe('the shared XML tokenizer', () => {
  it('reads elements, attributes (either quote, ">" inside), entities, CDATA; skips comments and declarations', () => {
    expect(
      tokens(`<?xml version="1.0"?><!-- c --><x:a b='1 > 0' c="&amp;&#13;&#x41;"><d/>t&lt;<![CDATA[<&>]]></x:a>`),
    ).toEqual(['<a b=1 > 0 c=&\rA>', '<d>', '</d>', 't<', '<&>', '</a>']);
  });

  it('refuses malformed XML with a message naming what is wrong', () => {
    const cases: [string, RegExp][] = [
      ['<a><b></a>', /<\/a> closes no open <a>/],
      ['<a>', /<a> is never closed/],
      ['<a b="1>', /an unterminated tag/],
      ['<a b=1/>', /an unquoted attribute/],
      ['<a>&nbsp;</a>', /unknown entity &nbsp;/],
      ['<a b="&#x110000;"/>', /character reference/],
      ['<!-- <a/>', /an unterminated comment/],
    ];
    for (const [xml, message] of cases) {
      expect(() => tokens(xml), xml).toThrow(XmlError);
      expect(() => tokens(xml), xml).toThrow(message);
    }
  });

  it('refuses a DOCTYPE, so no entity is ever expanded (billion laughs)', () => {
    const laughs = '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><r>&lol2;</r>';
    expect(() => scanXml(laughs, noop)).toThrow('a DOCTYPE or entity declaration is not read');
  });

  it('bounds nesting, attribute count and attribute length', () => {
    const deep = (n: number) => `${'<a>'.repeat(n)}${'</a>'.repeat(n)}`;
    expect(() => scanXml(deep(64), noop)).not.toThrow();
    expect(() => scanXml(deep(65), noop)).toThrow('malformed XML: elements nested deeper than 64');
    expect(() => scanXml(deep(100_000), noop)).toThrow(/nested deeper than 64/);
    expect(() => scanXml(deep(9), noop, { maxDepth: 8 })).toThrow(/nested deeper than 8/);
    const attrs = (n: number) => `<a ${Array.from({ length: n }, (_, i) => `x${i}="1"`).join(' ')}/>`;
    expect(() => scanXml(attrs(256), noop)).not.toThrow();
    expect(() => scanXml(attrs(257), noop)).toThrow('an element carries more than 256 attributes');
    expect(() => scanXml(`<a b="${'x'.repeat(65_537)}"/>`, noop)).toThrow(/attribute b is longer than the 65536/);
    expect(() => scanXml(`<a b="${'x'.repeat(100)}"/>`, noop, { maxAttributeChars: 99 })).toThrow(/longer than the 99/);
  });

  it('keeps attribute names off the prototype (a "__proto__" attribute is a plain key)', () => {
    let seen: Record<string, string> = {};
    scanXml('<a __proto__="x" constructor="y"/>', { ...noop, open: (_n, a) => (seen = a) });
    expect(Object.keys(seen)).toEqual(['__proto__', 'constructor']);
    expect(seen.constructor).toBe('y');
  });

  it('costs work linear in the document: ten times the elements, ten times the tokens', () => {
    const rows = (n: number) => `<r>${'<c v="1,234"><d/></c>'.repeat(n)}</r>`;
    let small = 0;
    let large = 0;
    scanXml(rows(1_000), { ...noop, open: () => void small++ });
    scanXml(rows(10_000), { ...noop, open: () => void large++ });
    expect(large / small).toBeCloseTo(10, 1);
  });
});
