import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A name that two modules of a workspace's index export through `export *` is legal ESM when both
 * lead to one binding, but the OpenTelemetry ESM loader hook (import-in-the-middle, loaded with
 * `--import @cds/telemetry/register` when tracing is on) treats it as ambiguous and drops it: the
 * importing service then fails at start with "does not provide an export named …". So each name
 * has one module in the index's star exports.
 */
describe('star exports of each workspace index', () => {
  const workspaces = ['libs', 'services'].flatMap((dir) =>
    readdirSync(path.join(root, dir)).map((name) => path.join(root, dir, name, 'src', 'index.ts')),
  );
  for (const index of workspaces.filter((f) => existsSync(f))) {
    it(path.relative(root, index), async () => {
      const stars = [...readFileSync(index, 'utf8').matchAll(/^export \* from '(.+?)';/gm)].map((m) => m[1]!);
      const firstFrom = new Map<string, string>();
      const twice: string[] = [];
      for (const star of stars) {
        const mod = (await import(path.join(path.dirname(index), star))) as Record<string, unknown>;
        for (const name of Object.keys(mod)) {
          const first = firstFrom.get(name);
          if (first === undefined) firstFrom.set(name, star);
          else twice.push(`${name}: ${first} and ${star}`);
        }
      }
      expect(twice).toEqual([]);
    });
  }
});
