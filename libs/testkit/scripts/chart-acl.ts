// Writes the chart's NATS authorization and Redis ACL files from libs/testkit/src/identities.ts
// (test/deploy/identities.unit.spec.ts fails when they differ): `node libs/testkit/scripts/chart-acl.ts`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/system.ts';
import { chartAclFiles } from '../src/identities.ts';

for (const [file, content] of Object.entries(chartAclFiles())) {
  const path = join(REPO_ROOT, 'charts', 'commodity-data', file);
  writeFileSync(path, content);
  console.log(`wrote ${path}`);
}
