import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** A function, closure or class of the production code, with its length in lines. */
export interface CodeUnit {
  /** File relative to the root, `/`-separated. */
  file: string;
  name: string;
  /** First and last line (1-based) and their count, from the unit's start to its end. */
  from: number;
  to: number;
  lines: number;
}

const SKIPPED_DIRS = new Set(['node_modules', '.tsbuild', 'dist', 'generated', 'testing', 'test', 'bench']);

/**
 * The production TypeScript files under `root`: no specs, generated clients, `testing/` helpers,
 * `test/` folders, benches or the testkit (as the structure reviews count them).
 */
export function productionFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (!SKIPPED_DIRS.has(name) && !name.startsWith('.')) walk(path);
      } else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.spec.ts')) {
        out.push(relative(root, path).split(sep).join('/'));
      }
    }
  };
  walk(root);
  return out.filter((f) => !f.startsWith('libs/testkit/'));
}

/**
 * The outermost functions, closures and classes of one file's text, each with its length: a
 * function nested in another counts as part of it (a helper nested in a factory closure makes the
 * closure longer). A nameless one is named after the variable it is assigned to.
 */
export function codeUnits(file: string, text: string): CodeUnit[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const units: CodeUnit[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) || ts.isClassDeclaration(node)) {
      const from = sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      const to = sf.getLineAndCharacterOfPosition(node.end).line + 1;
      const named = (node as { name?: ts.Node }).name;
      const name =
        named?.getText() ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText() : '(anonymous)');
      units.push({ file, name, from, to, lines: to - from + 1 });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return units;
}

/** The units of `minLines` lines or more under `root`, longest first. */
export function longUnits(root: string, minLines: number): CodeUnit[] {
  return productionFiles(root)
    .flatMap((file) => codeUnits(file, readFileSync(join(root, file), 'utf8')))
    .filter((u) => u.lines >= minLines)
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}
