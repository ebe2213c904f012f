import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findCycles, formatCycle, importGraph, runtimeSpecifiers } from './import-graph.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// A tiny monorepo: one workspace whose files loop through its own package entry, beside a
// type-only loop that must not count.
const FIXTURE: Record<string, string> = {
  'package.json': JSON.stringify({ workspaces: ['libs/*'] }),
  'libs/a/package.json': JSON.stringify({ name: '@fx/a', exports: { '.': './src/index.ts' } }),
  'libs/a/src/index.ts': `export { one } from './one.ts';\n`,
  'libs/a/src/one.ts': `import { two } from './two.ts';\nexport const one = () => two();\n`,
  'libs/a/src/two.ts': `import { one } from '@fx/a';\nexport const two = () => 2;\nexport const again = one;\n`,
  'libs/a/src/types-a.ts': `import type { B } from './types-b.ts';\nexport interface A { b?: B }\n`,
  'libs/a/src/types-b.ts': `import { type A } from './types-a.ts';\nexport type { A as Again } from './types-a.ts';\nexport interface B { a?: A }\n`,
  'libs/a/src/leaf.ts': `import { z } from 'zod';\nimport data from './data.json' with { type: 'json' };\nexport const leaf = [z, data];\n`,
};

describe('the import cycle check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the files of a cycle, through a workspace entry too, and leaves type-only loops aside', () => {
    for (const [path, text] of Object.entries(FIXTURE)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const cycles = findCycles(importGraph(dir));
    expect(cycles.map(formatCycle)).toEqual([
      'libs/a/src/index.ts -> libs/a/src/one.ts -> libs/a/src/two.ts -> libs/a/src/index.ts',
    ]);
  });

  it('reads only the imports that load a module at run time', () => {
    const text = [
      `import type { A } from './a.ts';`,
      `import { type B, type C } from './b.ts';`,
      `import { type D, e } from './d.ts';`,
      `import './side-effect.ts';`,
      `import * as ns from './ns.ts';`,
      `export type { F } from './f.ts';`,
      `export { type G } from './g.ts';`,
      `export * from './h.ts';`,
      `const lazy = () => import('./lazy.ts');`,
    ].join('\n');
    expect(runtimeSpecifiers('x.ts', text)).toEqual(['./d.ts', './side-effect.ts', './ns.ts', './h.ts']);
  });

  it('finds a self-import and a loop of two', () => {
    const graph = new Map([
      ['a.ts', new Set(['a.ts'])],
      ['b.ts', new Set(['c.ts'])],
      ['c.ts', new Set(['b.ts', 'd.ts'])],
      ['d.ts', new Set<string>()],
    ]);
    expect(findCycles(graph).map(formatCycle)).toEqual(['a.ts -> a.ts', 'b.ts -> c.ts -> b.ts']);
  });
});

describe('the services and libs', () => {
  // Parses every source file of the repository (about 500): seconds, more on a busy machine.
  it('have no import cycle (type-only imports aside)', { timeout: 60_000 }, () => {
    const graph = importGraph(ROOT);
    expect(graph.size).toBeGreaterThan(100); // the walk did find the sources
    expect(findCycles(graph).map(formatCycle)).toEqual([]);
  });

  it('keep the query route folders apart: each imports only shared modules', { timeout: 60_000 }, () => {
    const folder = (file: string) => /^services\/query\/src\/(list|detail|series|cot)\//.exec(file)?.[1];
    const crossings = [...importGraph(ROOT)].flatMap(([file, targets]) =>
      [...targets]
        .filter((t) => folder(file) !== undefined && folder(t) !== undefined && folder(t) !== folder(file))
        .map((t) => `${file} -> ${t}`),
    );
    expect(crossings).toEqual([]);
  });
});
