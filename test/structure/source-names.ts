import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

// How the structure spec finds where a data source's name is spelled (sources.unit.spec.ts).

/** The words of an identifier or a string: split at non-letters and camelCase humps, lower-cased. */
export function wordsOf(text: string): string[] {
  return text
    .split(/[^A-Za-z0-9]+/)
    .flatMap((part) => part.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/))
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

/** Whether a token spells the name: as one of its words or as a run of them (`WorldBank`, `EIA_API_KEY`). */
export function spells(token: string, name: string): boolean {
  const words = wordsOf(token);
  for (let i = 0; i < words.length; i++) {
    let run = '';
    for (let j = i; j < words.length && run.length < name.length; j++) {
      run += words[j];
      if (run === name) return true;
    }
  }
  return false;
}

/** The identifiers and string texts of a TypeScript file (comments left out). */
export function tokensOf(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) out.push(node.text);
    else if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) out.push(node.text);
    else if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      // A module path names a folder, not a source: the import rules govern those.
      if (ts.isImportDeclaration(node) && node.importClause) visit(node.importClause);
      if (ts.isExportDeclaration(node) && node.exportClause) visit(node.exportClause);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/**
 * Names that are also words for features (the `snapshot/` build, `backfill --demo`, a demo price
 * basis): only the name itself counts, as an identifier or a string, or as a provenance prefix
 * (`demo:`), not a word inside a longer token (`snapshotDir`, `DEMO_PARTS`).
 */
export const WORD_NAMES: ReadonlySet<string> = new Set(['demo', 'snapshot']);

/**
 * Whether a string is a sentence of published prose (a commodity's description or price note that
 * names an agency: "Not in the CFTC reports (a UK-regulated market)."): five words or more, ending
 * as a sentence ends. Such a text is content that no code reads, so adding a source never edits it;
 * an identifier, a key, a provenance prefix or a short label is code, and counts.
 */
export function isProse(token: string): boolean {
  return token.trim().split(/\s+/).length >= 5 && /[.!?)]$/.test(token.trim());
}

/** Whether a token names the source `name` (WORD_NAMES: exactly; others: as words of it); prose never does. */
export function namesSource(token: string, name: string): boolean {
  if (isProse(token)) return false;
  if (!WORD_NAMES.has(name)) return spells(token, name);
  const t = token.toLowerCase();
  return t === name || t.startsWith(`${name}:`);
}

/** The production TypeScript and JavaScript files of the workspaces and scripts/ (specs, test kits and generated code left out). */
export function productionFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name.startsWith('.') || ['node_modules', 'dist', 'generated', 'testing', 'test'].includes(entry.name))
        continue;
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|js|mjs)$/.test(entry.name) && !/\.(spec|d)\.ts$/.test(entry.name)) out.push(path);
    }
  };
  for (const top of ['libs', 'services', 'scripts']) walk(top);
  return out.filter((f) => !f.startsWith('libs/testkit/') && !/(^|\/)bench\//.test(f)).sort();
}

/** The production files outside `services/ingest/src/sources/<name>/` that name each source. */
export function filesNaming(root: string, names: readonly string[]): Map<string, string[]> {
  const out = new Map(names.map((n) => [n, [] as string[]]));
  for (const file of productionFiles(root)) {
    const tokens = tokensOf(file, readFileSync(join(root, file), 'utf8'));
    for (const name of names) {
      if (file.startsWith(`services/ingest/src/sources/${name}/`)) continue;
      if (tokens.some((t) => namesSource(t, name))) out.get(name)!.push(file);
    }
  }
  return out;
}
