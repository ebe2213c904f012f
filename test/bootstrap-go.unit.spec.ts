// scripts/bootstrap.sh's Go builds (nats-server and FerretDB), run as `npm start` and `npm test` run
// it, in a copy of the repository's scripts with `go`, `redis-server` and the Node.js runtime stood in
// by scripts on PATH (the real ones would take minutes): which build runs before the start (quick:
// `-N -l`, or optimized), which binaries the start runs, the optimized build left for after the
// start, and what every build gets (the compiler's collector setting, FerretDB's module copy).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE_VERSION = readFileSync(path.join(repoRoot, '.nvmrc'), 'utf8').trim();
const NATS_VERSION = 'v2.15.2';
const LEFT_OUT = ['internal/util/observability/observability.go', 'internal/handler/registry/mysql.go'];

// The stand-in for `go`: logs each call (its collector setting and arguments), answers the module
// questions from a fake FerretDB module, and `go build -o DIR/ TARGET...` writes a script per
// target that prints nats-server's version, then logs `BUILT <kind> <targets>` (kind quick when built with
// -N -l). With FAKE_GO_OPTIMIZED_SECONDS an optimized build of the binaries takes that long.
const FAKE_GO = `#!/usr/bin/env bash
echo "GOGC=$GOGC GOMEMLIMIT=$GOMEMLIMIT ARGS=$*" >>"$FAKE_GO_LOG"
case "$1 $2" in
  "mod download") exit 0 ;;
  "list -m") echo "$FAKE_FERRET_SRC"; exit 0 ;;
  "list "*) exit 0 ;;
esac
[ "$1" = build ] || { echo "fake go: unexpected $*" >&2; exit 2; }
shift
out="" kind=optimized targets=() modfile=""
while (($#)); do
  case "$1" in
    -o) out="$2"; shift ;;
    -modfile) modfile="$2"; shift ;;
    -tags) shift ;;
    -gcflags=*-N*) kind=quick ;;
    -*) ;;
    *) targets+=("$1") ;;
  esac
  shift
done
[ -n "$out" ] || exit 0 # the standard library's phase
if [ -n "$modfile" ]; then
  echo "MODFILE_LAST=$(tail -n 1 "$modfile")" >>"$FAKE_GO_LOG"
  copy="$(sed -n 's/^replace github.com\\/FerretDB\\/FerretDB => //p' "$modfile")"
  for f in ${LEFT_OUT.join(' ')}; do [ -e "$copy/$f" ] && echo "COPY_HAS=$f" >>"$FAKE_GO_LOG"; done
  [ -e "$copy/internal/handler/handler.go" ] && echo "COPY_HAS=internal/handler/handler.go" >>"$FAKE_GO_LOG"
fi
[ "$kind" = optimized ] && [ -n "$FAKE_GO_OPTIMIZED_SECONDS" ] && sleep "$FAKE_GO_OPTIMIZED_SECONDS"
for t in "\${targets[@]}"; do
  case "$t" in
    github.com/nats-io/nats-server/v2) name=nats-server ;;
    .) name=ferretdb ;;
    *) echo "fake go: unexpected target $t" >&2; exit 2 ;;
  esac
  printf '#!/bin/sh\\n# %s build\\necho "nats-server: ${NATS_VERSION}"\\n' "$kind" >"$out/$name"
  chmod +x "$out/$name"
done
echo "BUILT $kind \${targets[*]}" >>"$FAKE_GO_LOG"
`;

interface Run {
  code: number | null;
  out: string;
  /** The go calls this run made before it exited (the optimized build after the start comes later). */
  goCalls: string[];
}

let root: string;
let cache: string;
let goLog: string;
let fakeBin: string;
let ferretSrc: string;

/** Runs the copy's bootstrap.sh (run mode, or with `extraEnv`) to its exit; its output is closed then too. */
async function bootstrap(extraEnv: Record<string, string> = {}): Promise<Run> {
  const before = existsSync(goLog) ? readFileSync(goLog, 'utf8').split('\n').length - 1 : 0;
  const child = spawn('bash', [path.join(root, 'scripts/bootstrap.sh')], {
    env: {
      PATH: `${fakeBin}:/usr/bin:/bin`,
      HOME: root,
      CDS_CACHE: cache,
      FAKE_GO_LOG: goLog,
      FAKE_FERRET_SRC: ferretSrc,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  // 'close': the script exited and every holder of its output closed it (a build left running in
  // the background must not keep `npm start`'s output open)
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bootstrap.sh did not finish in 20 s:\n${out}`));
    }, 20_000);
    child.once('close', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  const lines = existsSync(goLog) ? readFileSync(goLog, 'utf8').split('\n').slice(0, -1) : [];
  return { code, out, goCalls: lines.slice(before) };
}

/** The binaries' builds among logged lines: `BUILT quick|optimized TARGET...`. */
const builds = (lines: string[]) => lines.filter((l) => l.startsWith('BUILT '));
const link = (name: string) => path.basename(readlinkSync(path.join(cache, 'bin', name)));
const cached = () => readdirSync(cache).filter((f) => f.startsWith('nats-server-') || f.startsWith('ferretdb-'));

/** Waits for the optimized build after the start to end: its log's last line (after it cleaned up). */
async function lateBuildDone(): Promise<void> {
  const log = path.join(cache, 'logs/go-build-optimized.log');
  await waitFor('the optimized build after the start', () =>
    existsSync(log) ? /phase 2 done: .* built \(optimized\)/.test(readFileSync(log, 'utf8')) : false,
  );
  expect(cached()).toHaveLength(4);
}

async function waitFor(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'cds-bootstrap-'));
  cache = path.join(root, 'cache');
  goLog = path.join(root, 'go.log');
  fakeBin = path.join(root, 'fake-bin');
  ferretSrc = path.join(root, 'ferretdb-module');
  // the parts of the repository bootstrap.sh reads
  for (const f of ['scripts/bootstrap.sh', 'scripts/toolchain.sh', '.nvmrc', 'package-lock.json']) {
    cpSync(path.join(repoRoot, f), path.join(root, f));
  }
  cpSync(path.join(repoRoot, 'tools/ferretdb'), path.join(root, 'tools/ferretdb'), {
    recursive: true,
    filter: (src) => !src.endsWith('_test.go'),
  });
  // a FerretDB module with the two files the build leaves out, and one it keeps
  for (const f of [...LEFT_OUT, 'internal/handler/handler.go']) {
    mkdirSync(path.dirname(path.join(ferretSrc, f)), { recursive: true });
    writeFileSync(path.join(ferretSrc, f), 'package x\n');
  }
  chmodSync(path.join(ferretSrc, LEFT_OUT[0]!), 0o444); // the module cache's files are read-only
  mkdirSync(fakeBin);
  const script = (name: string, body: string) => {
    writeFileSync(path.join(fakeBin, name), body);
    chmodSync(path.join(fakeBin, name), 0o755);
  };
  script('go', FAKE_GO);
  script('redis-server', '#!/bin/sh\necho "Redis server v=7.0.15 sha=0"\n');
  // renice logged, not done: the build after the start would otherwise wait for whatever else keeps
  // this machine's cores busy (the suite runs beside other steps)
  script('renice', '#!/bin/sh\necho "RENICE $*" >>"$FAKE_GO_LOG"\n');
  // the pinned Node.js runtime, installed, and the npm dependencies, installed for it
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  const nodeDir = path.join(cache, `node-v${NODE_VERSION}-linux-${arch}`, 'bin');
  mkdirSync(nodeDir, { recursive: true });
  writeFileSync(path.join(nodeDir, 'node'), `#!/bin/sh\necho v${NODE_VERSION}\n`);
  chmodSync(path.join(nodeDir, 'node'), 0o755);
  const lock = readFileSync(path.join(root, 'package-lock.json'));
  const hash = createHash('sha256').update(lock).update(`v${NODE_VERSION}\n`).digest('hex').slice(0, 16);
  mkdirSync(path.join(root, 'node_modules'));
  writeFileSync(path.join(root, 'node_modules/.cds-installed'), `${hash} prod\n`);
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

// Each case runs the script (its slow steps poll 5 times a second) and may wait for the build after it.
describe('scripts/bootstrap.sh: the Go builds', { timeout: 30_000 }, () => {
  it('a first start builds both quick, starts on them, and leaves the optimized build for after it', async () => {
    const run = await bootstrap({ FAKE_GO_OPTIMIZED_SECONDS: '1.5' });
    expect(run.code, run.out).toBe(0);
    // before the start: one quick build of both binaries
    expect(builds(run.goCalls)).toEqual(['BUILT quick github.com/nats-io/nats-server/v2 .']);
    expect(run.goCalls.find((c) => c.includes(' -o '))).toContain('-gcflags=all=-N -l -dwarf=false');
    expect(link('nats-server')).toBe(`nats-server-${NATS_VERSION}-quick`);
    expect(link('cds-ferretdb')).toMatch(/^ferretdb-[0-9a-f]{12}-quick$/);
    expect(run.out).toContain('this start runs quick builds of nats-server and FerretDB');
    // the script's output closed while the optimized build still ran (it sleeps 1.5 s)
    expect(cached().some((f) => !f.endsWith('-quick'))).toBe(false);
    await lateBuildDone();
    const all = readFileSync(goLog, 'utf8');
    expect(builds(all.split('\n'))).toEqual([
      'BUILT quick github.com/nats-io/nats-server/v2 .',
      'BUILT optimized github.com/nats-io/nats-server/v2 .',
    ]);
    expect(all.split('\n').filter((c) => c.includes(' -o ') && !c.includes('-N -l'))).toEqual([
      expect.stringContaining('-gcflags=all=-dwarf=false'),
    ]);
    // every go call with the compiler's collector off up to 1 GiB
    for (const call of all.split('\n').filter((l) => l.startsWith('GOGC='))) {
      expect(call).toMatch(/^GOGC=off GOMEMLIMIT=1GiB /);
    }
    // at idle priority (the subshell that runs it, whose children inherit it)
    expect(all).toMatch(/^RENICE -n 19 -p \d+$/m);
    // FerretDB from a copy of its module without the two files, named by a replace line
    expect(all).toMatch(/MODFILE_LAST=replace github\.com\/FerretDB\/FerretDB => .*\/ferretdb-src/);
    expect(all).toContain('COPY_HAS=internal/handler/handler.go');
    expect(all).not.toContain('COPY_HAS=internal/util/observability');
    expect(all).not.toContain('COPY_HAS=internal/handler/registry/mysql.go');
    // what each build worked in is gone
    expect(readdirSync(cache).filter((f) => f.startsWith('go-build-out'))).toEqual([]);
  });

  it('the next start builds nothing and runs the optimized binaries', async () => {
    const run = await bootstrap();
    expect(run.code, run.out).toBe(0);
    expect(run.goCalls).toEqual([]);
    expect(link('nats-server')).toBe(`nats-server-${NATS_VERSION}`);
    expect(link('cds-ferretdb')).toMatch(/^ferretdb-[0-9a-f]{12}$/);
    expect(run.out).not.toContain('quick');
  });

  it('a start whose optimized build was stopped runs the quick binaries and builds the optimized ones again after it', async () => {
    for (const f of cached().filter((f) => !f.endsWith('-quick'))) rmSync(path.join(cache, f));
    rmSync(path.join(cache, 'logs/go-build-optimized.log'));
    const run = await bootstrap({ FAKE_GO_OPTIMIZED_SECONDS: '1' });
    expect(run.code, run.out).toBe(0);
    expect(builds(run.goCalls)).toEqual([]); // nothing before the start
    expect(link('nats-server')).toBe(`nats-server-${NATS_VERSION}-quick`);
    expect(link('cds-ferretdb')).toMatch(/-quick$/);
    await lateBuildDone();
  });

  it('CDS_GO_BUILD=optimized waits for the optimized builds (as npm test does), even with quick ones cached', async () => {
    for (const f of cached().filter((f) => !f.endsWith('-quick'))) rmSync(path.join(cache, f));
    const run = await bootstrap({ CDS_GO_BUILD: 'optimized' });
    expect(run.code, run.out).toBe(0);
    expect(builds(run.goCalls)).toEqual(['BUILT optimized github.com/nats-io/nats-server/v2 .']);
    expect(link('nats-server')).toBe(`nats-server-${NATS_VERSION}`);
    expect(link('cds-ferretdb')).toMatch(/^ferretdb-[0-9a-f]{12}$/);
    expect(run.out).not.toContain('quick');
    // and leaves no build for after it
    const logAtExit = readFileSync(goLog, 'utf8');
    await new Promise((r) => setTimeout(r, 500));
    expect(readFileSync(goLog, 'utf8')).toBe(logAtExit);
  });

  it('refuses an unknown CDS_GO_BUILD, naming it', async () => {
    const run = await bootstrap({ CDS_GO_BUILD: 'fast' });
    expect(run.code).toBe(1);
    expect(run.out).toContain("CDS_GO_BUILD must be empty or optimized, not 'fast'");
  });
});
