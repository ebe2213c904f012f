// `npm run test:partitions [-- <scenario>...]`: every partition scenario (scenarios.ts), each on a
// fresh cluster of network namespaces, one after another; prints each one's verdicts and writes its
// history (JSON) and timeline (SVG) to test/artifacts/partitions/. Exits 1 when a check failed, 2
// when the machine cannot make namespaces (needs root with CAP_NET_ADMIN). `--clean` only removes
// what a killed run left behind. See docs/reliability.md "Partitions".
import { setMaxListeners } from 'node:events';
import { describeVerdicts } from './checker.ts';
import { canPartition, removeLeftovers } from './net.ts';
import { ARTIFACTS, runScenario } from './run-scenario.ts';
import { SCENARIOS } from './scenarios.ts';

// Each server and service process hooks the process's exit and signals (libs/testkit managed-process.ts).
setMaxListeners(64);
const args = process.argv.slice(2);
if (args.includes('--clean')) {
  const removed = await removeLeftovers();
  console.log(removed.length === 0 ? 'nothing to remove' : `removed ${removed.join(', ')}`);
  process.exit(0);
}
const unknown = args.filter((a) => !SCENARIOS.some((s) => s.name === a));
if (unknown.length > 0) {
  console.error(`unknown scenario ${unknown.join(', ')}; the scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
if (!(await canPartition())) {
  console.error('the partition suite needs root with CAP_NET_ADMIN and iproute2 (ip netns)');
  process.exit(2);
}
const chosen = args.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => args.includes(s.name));
let failed = 0;
for (const scenario of chosen) {
  const started = Date.now();
  console.log(`\n== ${scenario.name}: ${scenario.title}`);
  try {
    const { history, verdicts } = await runScenario(scenario, (line) => console.log(line));
    console.log(`${history.cut}; ${history.notes.join('; ')}`);
    console.log(describeVerdicts(verdicts));
    if (verdicts.some((v) => !v.ok)) failed += 1;
  } catch (err) {
    failed += 1;
    console.log(`FAILED ${err instanceof Error ? err.message : String(err)}`);
  }
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
console.log(`\n${chosen.length - failed}/${chosen.length} scenarios passed; histories and timelines in ${ARTIFACTS}`);
process.exit(failed === 0 ? 0 : 1);
