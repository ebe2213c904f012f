// Writes libs/contracts/openapi.json from the zod contracts; with --check, fails if the committed
// file differs from what the contracts generate (run in CI by `npm run openapi:check`).
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../src/index.ts';

const target = fileURLToPath(new URL('../openapi.json', import.meta.url));
const generated = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;

if (process.argv.includes('--check')) {
  const committed = await readFile(target, 'utf8').catch(() => '');
  if (committed !== generated) {
    console.error(
      'libs/contracts/openapi.json is out of date with the zod contracts: run `npm run openapi:generate` and commit it.',
    );
    process.exit(1);
  }
  console.log('openapi.json is current');
} else {
  await writeFile(target, generated);
  console.log(`wrote ${target}`);
}
