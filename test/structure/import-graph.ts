import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** A workspace package: its name and the source file behind each `exports` subpath. */
export interface Workspace {
  name: string;
  dir: string;
  exports: ReadonlyMap<string, string>;
}

/** An import cycle: the files of one shortest loop (first file repeated last) and of its whole tangle. */
export interface ImportCycle {
  cycle: string[];
  members: string[];
}

const SKIPPED_DIRS = new Set(['node_modules', '.tsbuild', 'dist']);

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
}

/** The workspaces the root package.json declares (`dir/*` patterns), with their exports resolved to files. */
export function readWorkspaces(root: string): Workspace[] {
  const pkg = readJson(join(root, 'package.json')) as { workspaces?: unknown };
  if (!Array.isArray(pkg.workspaces)) throw new Error(`${root}/package.json has no "workspaces" array`);
  const out: Workspace[] = [];
  for (const pattern of pkg.workspaces) {
    if (typeof pattern !== 'string' || !pattern.endsWith('/*'))
      throw new Error(`workspace pattern ${JSON.stringify(pattern)} is not of the form "dir/*"`);
    const parent = join(root, pattern.slice(0, -2));
    for (const name of readdirSync(parent).sort()) {
      const dir = join(parent, name);
      const manifest = join(dir, 'package.json');
      if (!existsSync(manifest)) continue;
      const ws = readJson(manifest) as { name?: unknown; exports?: unknown };
      if (typeof ws.name !== 'string') throw new Error(`${manifest} has no "name"`);
      const exports = new Map<string, string>();
      if (typeof ws.exports === 'string') exports.set('.', resolve(dir, ws.exports));
      else if (typeof ws.exports === 'object' && ws.exports !== null)
        for (const [subpath, target] of Object.entries(ws.exports))
          if (typeof target === 'string') exports.set(subpath, resolve(dir, target));
      out.push({ name: ws.name, dir, exports });
    }
  }
  return out;
}

function sourceFiles(dir: string, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, into);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) into.push(path);
  }
  return into;
}

/**
 * The module specifiers a file loads at run time: static imports and re-exports. `import type`,
 * `export type` and imports whose every name is marked `type` are left out (they bind nothing at
 * run time, so they cannot order module evaluation); so are dynamic `import()` calls.
 */
export function runtimeSpecifiers(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const allTypes = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) =>
    elements.length > 0 && elements.every((e) => e.isTypeOnly);
  const out: string[] = [];
  for (const st of file.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const clause = st.importClause;
      if (clause?.isTypeOnly) continue;
      if (clause && !clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings))
        if (allTypes(clause.namedBindings.elements)) continue;
      out.push(st.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      if (st.isTypeOnly) continue;
      if (st.exportClause && ts.isNamedExports(st.exportClause) && allTypes(st.exportClause.elements)) continue;
      out.push(st.moduleSpecifier.text);
    }
  }
  return out;
}

function resolveSpecifier(specifier: string, from: string, workspaces: readonly Workspace[]): string | undefined {
  if (specifier.startsWith('.')) {
    const base = resolve(from, '..', specifier);
    const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
    // A target that is no TypeScript file (JSON) or does not exist (tsc reports that) has no edge.
    return candidates.find((c) => c.endsWith('.ts') && existsSync(c) && statSync(c).isFile());
  }
  for (const ws of workspaces) {
    if (specifier !== ws.name && !specifier.startsWith(`${ws.name}/`)) continue;
    const target = ws.exports.get(`.${specifier.slice(ws.name.length)}`);
    return target?.endsWith('.ts') ? target : undefined;
  }
  return undefined; // a package from node_modules
}

/**
 * The run-time import graph of every TypeScript file of the workspaces (specs included), keyed by
 * path relative to `root`; workspace imports (`@cds/x`, `@cds/x/testing`) lead to the file their
 * `exports` names, so a file importing its own package's index is seen.
 */
export function importGraph(root: string): Map<string, Set<string>> {
  const workspaces = readWorkspaces(root);
  const rel = (p: string) => relative(root, p).split(sep).join('/');
  const graph = new Map<string, Set<string>>();
  for (const ws of workspaces) {
    for (const file of sourceFiles(ws.dir)) {
      const edges = new Set<string>();
      for (const spec of runtimeSpecifiers(file, readFileSync(file, 'utf8'))) {
        const target = resolveSpecifier(spec, file, workspaces);
        if (target !== undefined) edges.add(rel(target));
      }
      graph.set(rel(file), edges);
    }
  }
  return graph;
}

/** The strongly connected parts of the graph with a loop (Tarjan), each with one shortest loop named. */
export function findCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): ImportCycle[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const parts: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const part: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        part.push(w);
      } while (w !== v);
      if (part.length > 1 || graph.get(v)?.has(v)) parts.push(part.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return parts
    .map((members) => ({ cycle: shortestLoop(graph, members[0]!, new Set(members)), members }))
    .sort((a, b) => (a.members[0]! < b.members[0]! ? -1 : 1));
}

function shortestLoop(graph: ReadonlyMap<string, ReadonlySet<string>>, start: string, within: Set<string>): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of [...(graph.get(v) ?? [])].sort()) {
      if (!within.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at: string | undefined = v; at !== undefined && at !== start; at = parent.get(at))
          path.splice(1, 0, at);
        return [...path, start];
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  throw new Error(`${start} is in a strongly connected part but no loop returns to it`);
}

/** One line per cycle: the loop, then how many files the tangle holds when it is more than the loop. */
export function formatCycle(c: ImportCycle): string {
  const loop = c.cycle.join(' -> ');
  return c.members.length > c.cycle.length - 1 ? `${loop} (tangle of ${c.members.length} files)` : loop;
}
