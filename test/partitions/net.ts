// Hosts as Linux network namespaces on one bridge, and partitions between them (the partition
// suite, docs/reliability.md "Partitions"). Each host is a namespace `cdsp-<name>` with one veth
// (`eth0` inside, `cdsp-<name>` on the bridge `cdsp-br` in the root namespace) and an address
// 10.41.0.x/24; the bridge itself is 10.41.0.1, where the test process (the clients) lives, so the
// test always reaches every host. Needs root (CAP_NET_ADMIN) and iproute2 only.
//
// A cut between two hosts is a silent drop, as on a real network: each side's neighbour entry for
// the other is pinned to a MAC address no interface has, so frames leave and nobody takes them
// (new connections time out, open ones stop hearing back; nothing is refused). Healing deletes the
// pinned entries and ARP finds the real addresses again. This kernel has no netem/gact/iptables,
// which is why the cut is made in the neighbour tables and not with tc or a firewall.
import { execFile } from 'node:child_process';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PREFIX = 'cdsp';
const BRIDGE = `${PREFIX}-br`;
const SUBNET = '10.41.0';
/** The MAC every cut points at: locally administered, unicast, owned by no interface. */
const NOWHERE = '02:00:00:00:de:ad';
const IP_TIMEOUT_MS = 10_000;

export interface Host {
  /** Short name (at most 10 characters: interface names are at most 15). */
  name: string;
  /** Last byte of its address (2..254). */
  octet: number;
}

/** `ip <args>`, failing with its stderr; bounded by IP_TIMEOUT_MS. */
export function ip(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('ip', [...args], { timeout: IP_TIMEOUT_MS }, (err, stdout, stderr) => {
      if (err !== null) reject(new Error(`ip ${args.join(' ')}: ${stderr.trim() || err.message}`));
      else resolve(stdout);
    });
  });
}

export const nsOf = (host: string): string => `${PREFIX}-${host}`;
export const addressOf = (host: Host): string => `${SUBNET}.${host.octet}`;

/** True when this process may create namespaces (root with CAP_NET_ADMIN and iproute2). */
export async function canPartition(): Promise<boolean> {
  if (process.getuid?.() !== 0) return false;
  const probe = `${PREFIX}-probe${process.pid}`;
  try {
    await ip(['netns', 'add', probe]);
    await ip(['netns', 'del', probe]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes what an earlier run left behind (it was killed before its cleanup): every `cdsp-*`
 * namespace, after killing what still runs in it (only this suite starts processes there), and the
 * bridge (its veths go with their namespaces).
 */
async function removeStale(): Promise<string[]> {
  const removed: string[] = [];
  const list = await ip(['netns', 'list']);
  for (const line of list.split('\n')) {
    const name = line.split(' ')[0] ?? '';
    if (!name.startsWith(`${PREFIX}-`)) continue;
    const pids = (await ip(['netns', 'pids', name]).catch(() => ''))
      .split('\n')
      .map((p) => Number(p))
      .filter((p) => p > 0);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await ip(['netns', 'del', name]).catch(() => undefined);
    removed.push(name);
  }
  // A deleted namespace may linger in the kernel a while (its veth with it): delete each host's
  // veth from this side (that takes its peer too), and the bridge.
  const links = await ip(['-o', 'link', 'show']);
  for (const match of links.matchAll(new RegExp(`^\\d+: (${PREFIX}-[^:@\\s]+)`, 'gm'))) {
    await ip(['link', 'del', match[1]!]).catch(() => undefined);
    removed.push(match[1]!);
  }
  return removed;
}

export interface Network {
  readonly hosts: readonly Host[];
  address(host: string): string;
  /** Cuts every host of `a` from every host of `b`, both ways (see above). */
  cut(a: readonly string[], b: readonly string[]): Promise<void>;
  /** Heals every cut. */
  healAll(): Promise<void>;
  /** The pairs cut now, `a|b`. */
  cuts(): string[];
  /** Removes every namespace and the bridge. Safe to call twice. */
  destroy(): Promise<void>;
}

/** The run holding the namespaces: one at a time per machine (they share the names and the subnet). */
const LOCK = join(tmpdir(), `${PREFIX}.lock`);

/** Takes LOCK, or fails naming the live run that holds it; a dead holder's lock is taken over. */
function lock(): void {
  try {
    const holder = Number(readFileSync(LOCK, 'utf8'));
    if (holder > 0 && holder !== process.pid) {
      try {
        process.kill(holder, 0);
        throw new Error(`another partition run (pid ${holder}) holds the network namespaces (${LOCK}); one at a time`);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  writeFileSync(LOCK, String(process.pid));
}

function unlock(): void {
  try {
    if (Number(readFileSync(LOCK, 'utf8')) === process.pid) unlinkSync(LOCK);
  } catch {
    // not ours, or gone
  }
}

/** removeStale for `npm run test:partitions -- --clean`: refused while a live run holds the namespaces. */
export async function removeLeftovers(): Promise<string[]> {
  lock();
  try {
    return await removeStale();
  } finally {
    unlock();
  }
}

/** Creates the bridge and one namespace per host; removes stale ones first. */
export async function createNetwork(hosts: readonly Host[]): Promise<Network> {
  lock();
  await removeStale();
  const byName = new Map(hosts.map((h) => [h.name, h]));
  const host = (name: string): Host => {
    const h = byName.get(name);
    if (h === undefined) throw new Error(`no host ${name} (hosts: ${[...byName.keys()].join(', ')})`);
    return h;
  };
  let destroyed = false;
  const destroy = async (): Promise<void> => {
    if (destroyed) return;
    destroyed = true;
    await removeStale();
    unlock();
  };
  try {
    await ip(['link', 'add', BRIDGE, 'type', 'bridge']);
    await ip(['addr', 'add', `${SUBNET}.1/24`, 'dev', BRIDGE]);
    await ip(['link', 'set', BRIDGE, 'up']);
    for (const h of hosts) {
      const ns = nsOf(h.name);
      await ip(['netns', 'add', ns]);
      await ip(['link', 'add', ns, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
      await ip(['link', 'set', ns, 'master', BRIDGE, 'up']);
      await ip(['-n', ns, 'addr', 'add', `${addressOf(h)}/24`, 'dev', 'eth0']);
      await ip(['-n', ns, 'link', 'set', 'eth0', 'up']);
      await ip(['-n', ns, 'link', 'set', 'lo', 'up']);
    }
  } catch (err) {
    await destroy();
    throw err;
  }
  const cut = new Set<string>();
  const pin = (from: Host, to: Host) =>
    ip([
      '-n',
      nsOf(from.name),
      'neigh',
      'replace',
      addressOf(to),
      'lladdr',
      NOWHERE,
      'dev',
      'eth0',
      'nud',
      'permanent',
    ]);
  const unpin = (from: Host, to: Host) =>
    ip(['-n', nsOf(from.name), 'neigh', 'del', addressOf(to), 'dev', 'eth0']).catch(() => undefined);
  return {
    hosts,
    address: (name) => addressOf(host(name)),
    async cut(a, b) {
      for (const x of a.map(host)) {
        for (const y of b.map(host)) {
          if (x.name === y.name) continue;
          await pin(x, y);
          await pin(y, x);
          cut.add([x.name, y.name].sort().join('|'));
        }
      }
    },
    async healAll() {
      for (const pair of cut) {
        const [x, y] = pair.split('|').map(host) as [Host, Host];
        await unpin(x, y);
        await unpin(y, x);
      }
      cut.clear();
    },
    cuts: () => [...cut],
    destroy,
  };
}
