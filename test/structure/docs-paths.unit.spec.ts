import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'test-results', 'artifacts']);

/** Every file of the repository, as a path relative to its root. */
function repositoryFiles(dir = ROOT, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.')) repositoryFiles(join(dir, entry.name), out);
    } else {
      out.push(relative(ROOT, join(dir, entry.name)));
    }
  }
  return out;
}

/** The text of a markdown section: from its `## ` heading to the next one. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/**
 * The source files a text names in backticks: `services/gateway/src/app.ts`, or a path relative to
 * the component the walk-through is in (`cache/cache-step.ts`), which must end some file's path.
 */
function namedFiles(text: string): string[] {
  return [...text.matchAll(/`([A-Za-z0-9_./-]+\.ts)`/g)].map((m) => m[1]!);
}

describe('docs/architecture.md', () => {
  const files = repositoryFiles();
  const exists = (named: string) => files.some((f) => f === named || f.endsWith(`/${named}`));
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');

  for (const heading of ['One request, file by file', 'One event, file by file', "The gateway's request path"]) {
    it(`"${heading}" names only files that exist`, () => {
      const named = namedFiles(section(doc, heading));
      expect(named.length).toBeGreaterThan(5);
      expect(named.filter((n) => !exists(n))).toEqual([]);
    });
  }

  it('the check finds a file that does not exist', () => {
    expect(namedFiles('then `cache/no-such-step.ts` and `app.ts`').filter((n) => !exists(n))).toEqual([
      'cache/no-such-step.ts',
    ]);
  });
});
