// One short network partition for `npm test` (the whole set is `npm run test:partitions`,
// test/partitions/run.ts; docs/reliability.md "Partitions"): the system on hosts of their own
// (network namespaces), the Redis primary cut from its three Sentinels for 12 s under load (they
// fail over to the replica while the gateways still reach the old primary), with an ingest run
// publishing and a key revoked while it lasts. The NATS partitions take longer to heal (a server
// rejoining the cluster: 14-62 s measured) and run in `npm run test:partitions` only. After the
// heal the checker (test/partitions/checker.ts) must find every acknowledged event stored once and
// in read models equal to a clean rebuild, the revoked key refused by every gateway within the
// bound, the rate windows within theirs, and no 5xx but 503, and 503 only while partitioned and
// settling. The history and its timeline (SVG) go to test/artifacts/partitions/. Needs root with
// CAP_NET_ADMIN (as CI and this machine have): without it the file is skipped, saying so.
import { setMaxListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { describeVerdicts } from './partitions/checker.ts';
import { canPartition } from './partitions/net.ts';
import { runScenario } from './partitions/run-scenario.ts';
import { SCENARIOS } from './partitions/scenarios.ts';

const SHORT = 'redis-primary-sentinels';
const able = await canPartition();
if (!able)
  console.warn(
    'partitions-short: skipped, this process cannot create network namespaces (needs root with CAP_NET_ADMIN)',
  );
// Each server and service process hooks the process's exit and signals (libs/testkit managed-process.ts).
setMaxListeners(64);

describe.skipIf(!able)('a network partition under load', () => {
  it(`${SHORT}, 12 s: nothing acknowledged lost, the revocation in time, the rate windows within their bound, no 5xx`, async () => {
    const scenario = SCENARIOS.find((s) => s.name === SHORT)!;
    const { history, verdicts } = await runScenario({ ...scenario, holdMs: 12_000 });
    const text = describeVerdicts(verdicts);
    console.log(`partitions: ${history.cut}\n${text}`);
    expect(
      verdicts.filter((v) => !v.ok),
      text,
    ).toEqual([]);
  }, 240_000);
});
