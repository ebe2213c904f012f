// The chart's NATS and Redis user files are the rules the testkit starts its servers with (so every
// int and e2e run proves them sufficient): libs/testkit/src/identities.ts, written by
// `node libs/testkit/scripts/chart-acl.ts`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chartAclFiles, NATS_PERMISSIONS } from '@cds/testkit';
import { describe, expect, it } from 'vitest';
import { chartDir } from './helpers.ts';

describe('charts/commodity-data/files (issue #22, least privilege)', () => {
  it.each(Object.entries(chartAclFiles()))('%s is the generated one', (file, content) => {
    const committed = readFileSync(path.join(chartDir, file), 'utf8');
    expect(
      committed,
      `${file} differs from libs/testkit/src/identities.ts: run node libs/testkit/scripts/chart-acl.ts`,
    ).toBe(content);
  });

  it('only the admin API may publish key events; the gateway and the query service publish no event at all', () => {
    const publishers = Object.entries(NATS_PERMISSIONS)
      .filter(([, p]) => p.publish.some((s) => s === 'cds.keys.>' || s.startsWith('cds.keys.') || s === '>'))
      .map(([id]) => id);
    expect(publishers).toEqual(['admin']);
    for (const id of ['gateway', 'query'] as const) {
      expect(NATS_PERMISSIONS[id].publish.filter((s) => !s.startsWith('$JS.API.'))).toEqual([]);
    }
    // Nobody but the admin API may change, purge or delete the key stream.
    for (const [id, p] of Object.entries(NATS_PERMISSIONS)) {
      if (id === 'admin') continue;
      expect(
        p.publish.filter((s) => /^\$JS\.API\.STREAM\.(UPDATE|PURGE|DELETE|CREATE)\.CDS_KEYS/.test(s)),
        id,
      ).toEqual([]);
    }
  });
});
