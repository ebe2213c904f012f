// values.schema.json must reject every file in charts/commodity-data/ci/bad (each names, on its first
// line `# expect: ...`, the text helm's error must contain), and every value must be documented.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chartDir, helmTemplate } from './helpers.ts';

const badFiles = readdirSync(path.join(chartDir, 'ci/bad'))
  .filter((f) => f.endsWith('.yaml'))
  .sort();

describe('bad values files', () => {
  it('exist in number', () => {
    expect(badFiles.length).toBeGreaterThanOrEqual(20);
  });

  it.each(badFiles)('rejects ci/bad/%s with the expected error', (file) => {
    const text = readFileSync(path.join(chartDir, 'ci/bad', file), 'utf8');
    const expected = /^# expect: (.+)$/m.exec(text)?.[1]?.trim();
    expect(expected, `${file} must start with "# expect: <text of helm's error>"`).toBeTruthy();
    const r = helmTemplate(`ci/bad/${file}`);
    expect(r.status, `${file} was accepted`).not.toBe(0);
    expect(r.stderr).toContain(expected);
    // Schema violations are reported as such (the one template-level check says why in its own words).
    if (!file.startsWith('hpa-')) expect(r.stderr).toContain("values don't meet the specifications of the schema");
  });
});

/** Leaf paths of values.yaml: scalars, lists, empty maps, and maps documented as a whole (label selectors). */
function leafPaths(value: unknown, documented: readonly string[], prefix = ''): string[] {
  const isMap = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (isMap && Object.keys(value).length > 0 && !documented.includes(prefix)) {
    return Object.entries(value).flatMap(([k, v]) => leafPaths(v, documented, prefix ? `${prefix}.${k}` : k));
  }
  return [prefix];
}

describe('values documentation', () => {
  const valuesText = readFileSync(path.join(chartDir, 'values.yaml'), 'utf8');
  const readme = readFileSync(path.join(chartDir, 'README.md'), 'utf8');
  const params = [...valuesText.matchAll(/^## @param (\S+)/gm)].map((m) => m[1]!);
  const leaves = leafPaths(parse(valuesText), params);

  it('documents every value of values.yaml with ## @param', () => {
    expect(leaves.filter((l) => !params.includes(l))).toEqual([]);
  });

  it('documents only values that exist', () => {
    expect(params.filter((p) => !leaves.includes(p))).toEqual([]);
    expect(new Set(params).size).toBe(params.length);
  });

  it('lists every value in the chart README', () => {
    const listed = [...readme.matchAll(/^\|\s*`([^`]+)`\s*\|/gm)].map((m) => m[1]!);
    expect(params.filter((p) => !listed.includes(p))).toEqual([]);
    expect(listed.filter((p) => !params.includes(p))).toEqual([]);
  });
});
