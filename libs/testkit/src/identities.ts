// The least-privilege identities of the infrastructure (issue #22, security review #2): one NATS user
// and one Redis user per component, each allowed only what its code uses. The testkit starts its
// servers with them (random passwords per run), so every int and e2e run that goes through
// startSystem proves them sufficient; the chart ships the same rules (charts/commodity-data/files/,
// kept equal to this module by test/deploy/identities.unit.spec.ts). docs/operations.md "Credentials".
import { randomBytes } from 'node:crypto';
import {
  CHANGES_STREAM,
  COT_CHECKS_BUCKET,
  DATA_STREAM,
  INCIDENTS_BUCKET,
  KEY_REVOCATION_NOTICES,
  KEYS_STREAM,
  RELEASES_BUCKET,
  SYNC_BUCKET,
} from '@cds/contracts';

/** The components that hold a NATS connection (the dashboard holds none). */
export const NATS_IDENTITIES = ['gateway', 'query', 'projector', 'ingest', 'admin', 'notifier'] as const;
export type NatsIdentity = (typeof NATS_IDENTITIES)[number];

/** The components that use Redis. */
export const REDIS_IDENTITIES = ['gateway', 'dashboard'] as const;
export type RedisIdentity = (typeof REDIS_IDENTITIES)[number];

/** The NATS user with every permission: stream setup by tests and `npm start`, never a service. */
export const NATS_SYSTEM_USER = 'cds-system';

/** What a NATS user may publish and subscribe to (nats-server `permissions`). */
export interface SubjectPermissions {
  /** Subjects it may publish to; empty: none. */
  publish: readonly string[];
  /** Subjects refused even though `publish` matches them (nats-server: deny wins over allow). */
  publishDeny?: readonly string[];
  /** Subjects it may subscribe to; empty: none. */
  subscribe: readonly string[];
}

// Stream names of the streams nobody else defines here.
const DEADLETTER_STREAM = 'CDS_DEADLETTER';
/** ingest's published-ids ledger (services/ingest/src/publish/ledger.ts LEDGER_BUCKET). */
const LEDGER_BUCKET = 'CDS_INGEST_LEDGER';
const PROJECTOR_DURABLES = [
  'projector-catalog',
  'projector-series',
  'projector-cot',
  'projector-supply_demand',
] as const;
const NOTIFIER_DURABLE = 'notifier';

/** `$JS.API.INFO`: the account info `jetstreamManager()` asks for when it is created. */
const JS_INFO = '$JS.API.INFO';
const streamInfo = (stream: string) => `$JS.API.STREAM.INFO.${stream}`;
/** Create the stream when it is absent: the server refuses a create of an existing stream with other settings. */
const streamCreate = (stream: string) => `$JS.API.STREAM.CREATE.${stream}`;
/** Align the settings of an existing stream (its owner only: an update may also add sources or subjects). */
const streamUpdate = (stream: string) => `$JS.API.STREAM.UPDATE.${stream}`;

/**
 * Ordered (ephemeral) consumers of a stream: nats.js names them itself (a random prefix), so the
 * consumer name is a wildcard; create (with or without a filter subject), info, pulls, and delete
 * (nats.js deletes the previous consumer when it resets one, e.g. after a NATS restart). Another
 * component's durable on the same stream is taken out again with `othersDurable`.
 */
function orderedReader(stream: string): string[] {
  return [
    `$JS.API.CONSUMER.CREATE.${stream}.*`,
    `$JS.API.CONSUMER.CREATE.${stream}.*.>`,
    `$JS.API.CONSUMER.INFO.${stream}.*`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
    `$JS.API.CONSUMER.DELETE.${stream}.*`,
  ];
}

/**
 * Every consumer API request on another component's durable (create, info, delete, pull), for a
 * user whose ordered-consumer wildcards would otherwise match it: it may not delete, pull from or
 * redefine the notifier's position.
 */
function othersDurable(stream: string, durable: string): string[] {
  return [
    `$JS.API.CONSUMER.*.${stream}.${durable}`,
    `$JS.API.CONSUMER.*.${stream}.${durable}.>`,
    `$JS.API.CONSUMER.*.*.${stream}.${durable}`,
  ];
}

/** A durable pull consumer by name: create or align it, read its info, pull, and ack its messages. */
function durableReader(stream: string, durable: string): string[] {
  return [
    `$JS.API.CONSUMER.CREATE.${stream}.${durable}`,
    `$JS.API.CONSUMER.CREATE.${stream}.${durable}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${durable}`,
    `$JS.API.CONSUMER.INFO.${stream}.${durable}`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
    `$JS.ACK.${stream}.${durable}.>`,
  ];
}

/** A KV bucket read and written by key (create/align it, get, put). */
function kvReadWrite(bucket: string): string[] {
  const stream = `KV_${bucket}`;
  return [
    streamInfo(stream),
    streamCreate(stream),
    streamUpdate(stream),
    `$KV.${bucket}.>`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
  ];
}

/** The user's own reply subjects (libs/messaging `inboxPrefixOf`). */
const inbox = (user: string) => `_INBOX_${user}.>`;

/**
 * Every NATS user and what it may do. Only `admin` publishes `cds.keys.>` (and alone may update or
 * purge CDS_KEYS: an update could add a source stream, another way in); only `ingest` publishes
 * `cds.data.>`; the gateway and the query service publish nothing but JetStream API requests
 * (the query service not even those).
 */
export const NATS_PERMISSIONS: Readonly<Record<NatsIdentity, SubjectPermissions>> = {
  // Follows CDS_KEYS (key table), CDS_CHANGES (SSE), the sync-state bucket and the COT consistency
  // failures bucket (GET /status), all ordered; hears cds.projected.* (cache invalidation) and the
  // admin API's revocation notices. Creates CDS_CHANGES and the sync bucket when it starts before
  // their writers (create only); waits for CDS_KEYS, which the admin API makes, and for the COT
  // checks bucket, which the projector makes (read only).
  gateway: {
    publish: [
      JS_INFO,
      streamInfo(KEYS_STREAM),
      streamInfo(CHANGES_STREAM),
      streamCreate(CHANGES_STREAM),
      streamInfo(`KV_${SYNC_BUCKET}`),
      streamCreate(`KV_${SYNC_BUCKET}`),
      ...orderedReader(KEYS_STREAM),
      ...orderedReader(CHANGES_STREAM),
      ...orderedReader(`KV_${SYNC_BUCKET}`),
      streamInfo(`KV_${COT_CHECKS_BUCKET}`),
      ...orderedReader(`KV_${COT_CHECKS_BUCKET}`),
      // GET /datasets, /releases: the projector's release ledger and the operators' incidents (read only).
      streamInfo(`KV_${RELEASES_BUCKET}`),
      ...orderedReader(`KV_${RELEASES_BUCKET}`),
      streamInfo(`KV_${INCIDENTS_BUCKET}`),
      ...orderedReader(`KV_${INCIDENTS_BUCKET}`),
    ],
    publishDeny: othersDurable(CHANGES_STREAM, NOTIFIER_DURABLE),
    subscribe: [inbox('gateway'), 'cds.projected.>', KEY_REVOCATION_NOTICES],
  },
  // Core NATS only: the invalidations of its response cache.
  query: { publish: [], subscribe: ['cds.projected.>'] },
  // A durable consumer per projection on CDS_DATA (the rebuild command: an ordered one), change
  // records on CDS_CHANGES and parked events on CDS_DEADLETTER (streams it creates and aligns),
  // cds.projected.* for the caches, the COT consistency failures bucket (creates, writes, deletes keys)
  // and the release ledger bucket (creates it, compare-and-sets its keys).
  projector: {
    publish: [
      JS_INFO,
      streamInfo(DATA_STREAM),
      ...PROJECTOR_DURABLES.flatMap((d) => durableReader(DATA_STREAM, d)),
      ...orderedReader(DATA_STREAM),
      streamInfo(CHANGES_STREAM),
      streamCreate(CHANGES_STREAM),
      streamUpdate(CHANGES_STREAM),
      'cds.changes.>',
      streamInfo(DEADLETTER_STREAM),
      streamCreate(DEADLETTER_STREAM),
      streamUpdate(DEADLETTER_STREAM),
      'cds.deadletter.>',
      'cds.projected.>',
      ...kvReadWrite(COT_CHECKS_BUCKET),
      ...kvReadWrite(RELEASES_BUCKET),
    ],
    subscribe: [inbox('projector')],
  },
  // The data publisher (backfill, fetch, sync CronJobs): CDS_DATA, which it creates and aligns, its
  // ledger bucket and the sync-state bucket.
  ingest: {
    publish: [
      JS_INFO,
      streamInfo(DATA_STREAM),
      streamCreate(DATA_STREAM),
      streamUpdate(DATA_STREAM),
      'cds.data.>',
      ...kvReadWrite(LEDGER_BUCKET),
      ...kvReadWrite(SYNC_BUCKET),
    ],
    subscribe: [inbox('ingest')],
  },
  // The admin API, the key authority: the only publisher of cds.keys.> and of the revocation notices;
  // creates and aligns both event streams at start (ENSURE_STREAMS), follows CDS_KEYS (ordered) and
  // purges expired revocations.
  admin: {
    publish: [
      JS_INFO,
      streamInfo(KEYS_STREAM),
      streamCreate(KEYS_STREAM),
      streamUpdate(KEYS_STREAM),
      `$JS.API.STREAM.PURGE.${KEYS_STREAM}`,
      ...orderedReader(KEYS_STREAM),
      'cds.keys.>',
      KEY_REVOCATION_NOTICES,
      streamInfo(DATA_STREAM),
      streamCreate(DATA_STREAM),
      streamUpdate(DATA_STREAM),
      // `npm run admin -- incident …` (an operator as this user): the incidents bucket, which it creates.
      ...kvReadWrite(INCIDENTS_BUCKET),
    ],
    subscribe: [inbox('admin')],
  },
  // Its durable consumer on CDS_CHANGES (creating the stream when it starts before the projector), and
  // the account plans it follows on CDS_KEYS (ordered, read only).
  notifier: {
    publish: [
      JS_INFO,
      streamInfo(CHANGES_STREAM),
      streamCreate(CHANGES_STREAM),
      ...durableReader(CHANGES_STREAM, NOTIFIER_DURABLE),
      streamInfo(KEYS_STREAM),
      ...orderedReader(KEYS_STREAM),
    ],
    subscribe: [inbox('notifier')],
  },
};

/** One user of a nats-server config; `password` is written as given (a `$VARIABLE` reference or a literal). */
export interface NatsUser {
  user: string;
  password: string;
  /** Omitted: every subject (the system user). */
  permissions?: SubjectPermissions;
}

function natsList(subjects: readonly string[]): string {
  return `[${subjects.map((s) => JSON.stringify(s)).join(', ')}]`;
}

function natsPermissionBlock(p: SubjectPermissions): string {
  const side = (allow: readonly string[], deny: readonly string[] = []) =>
    allow.length === 0
      ? `{ deny: [">"] }`
      : `{ allow: ${natsList(allow)}${deny.length > 0 ? `, deny: ${natsList(deny)}` : ''} }`;
  return `{ publish: ${side(p.publish, p.publishDeny)}, subscribe: ${side(p.subscribe)} }`;
}

/**
 * The `authorization` block of a nats-server config with these users. A password starting with `$`
 * is a variable reference (nats-server reads it from the environment), anything else is quoted.
 */
export function natsAuthorizationConfig(users: readonly NatsUser[]): string {
  const lines = users.map((u) => {
    const password = u.password.startsWith('$') ? u.password : JSON.stringify(u.password);
    const permissions =
      u.permissions === undefined ? '' : `,\n      permissions: ${natsPermissionBlock(u.permissions)}`;
    return `    {\n      user: ${JSON.stringify(u.user)}, password: ${password}${permissions}\n    }`;
  });
  return `authorization {\n  users = [\n${lines.join(',\n')}\n  ]\n}\n`;
}

/**
 * Every Redis user's rules after `on >password` (redis.conf `user` lines, `ACL SETUSER`): the
 * commands it runs, the commands inside its Lua scripts included (Redis checks those too), and its
 * key patterns; no Pub/Sub channels. Key prefixes are the services' defaults (RATE_KEY_PREFIX
 * `cds:rl:`, USAGE_KEY_PREFIX `cds:usage:`, SSE_SLOT_KEY_PREFIX `cds:sse:`, DASHBOARD_KEY_PREFIX
 * `cds:dash:`): another prefix needs its pattern here and in the chart's ACL file.
 */
export const REDIS_ACL_RULES: Readonly<Record<RedisIdentity, string>> = {
  // Rate windows and usage counters (one Lua script), SSE stream slots (Lua scripts and ZREM).
  gateway: [
    'resetkeys ~cds:rl:* ~cds:usage:* ~cds:sse:* resetchannels -@all',
    '+ping +info +client|setname +quit +evalsha +eval +script|load',
    '+time +hmget +hset +hkeys +hdel +expireat +zremrangebyscore +zcard +zscore +zadd +zrange +zrem +pexpire',
    '+cluster|slots +cluster|info +asking',
  ].join(' '),
  // Its sessions and throttles under cds:dash:, and a read of the gateway's windows and usage (the usage page).
  dashboard: [
    'resetkeys ~cds:dash:* %R~cds:rl:* %R~cds:usage:* resetchannels -@all',
    '+ping +info +client|setname +quit +multi +exec +discard +time',
    '+get +set +del +sadd +smembers +pexpire +expire +incr +decr +hgetall',
    '+cluster|slots +cluster|info +asking',
  ].join(' '),
};

/** The Redis user with every permission (tests, `npm start`): the `default` user, with a password. */
export const REDIS_SYSTEM_USER = 'default';

/** `user` lines of redis.conf (or an ACL file): the default user with `systemPassword`, then each component. */
export function redisUserLines(passwords: Readonly<Record<RedisIdentity | 'default', string>>): string[] {
  return [
    `user ${REDIS_SYSTEM_USER} on >${passwords.default} ~* &* +@all`,
    ...REDIS_IDENTITIES.map((id) => `user ${id} on >${passwords[id]} ${REDIS_ACL_RULES[id]}`),
  ];
}

/** A fresh random password (URL-safe, so it goes into a URL as it is). */
export function randomPassword(): string {
  return randomBytes(18).toString('base64url');
}

/** Replaces the credentials of `url`. */
function withUser(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
}

/** A NATS server's users for one run: its config, the system user's address and each component's. */
export interface NatsServerAuth {
  /** The `authorization` block (system user + every identity, literal passwords). */
  config: string;
  /** `url` with the system user. */
  url(url: string): string;
  /** `url` with each component's user. */
  identities(url: string): Record<NatsIdentity, string>;
}

/** Fresh passwords for the system user and every NATS identity (a server the testkit starts). */
export function natsServerAuth(): NatsServerAuth {
  const system = randomPassword();
  const passwords = Object.fromEntries(NATS_IDENTITIES.map((id) => [id, randomPassword()])) as Record<
    NatsIdentity,
    string
  >;
  return {
    config: natsAuthorizationConfig([
      { user: NATS_SYSTEM_USER, password: system },
      ...NATS_IDENTITIES.map((id) => ({ user: id, password: passwords[id], permissions: NATS_PERMISSIONS[id] })),
    ]),
    url: (url) => withUser(url, NATS_SYSTEM_USER, system),
    identities: (url) => {
      const out = {} as Record<NatsIdentity, string>;
      for (const id of NATS_IDENTITIES) out[id] = withUser(url, id, passwords[id]);
      return out;
    },
  };
}

/** A Redis server's users for one run: redis-server arguments, the default user's address and each component's. */
export interface RedisServerAuth {
  /** `--user ...` arguments of redis-server, one directive per user. */
  args: string[];
  url(url: string): string;
  identities(url: string): Record<RedisIdentity, string>;
}

/** Fresh passwords for the default user and every Redis identity (a server the testkit starts). */
export function redisServerAuth(): RedisServerAuth {
  const passwords = Object.fromEntries(
    [REDIS_SYSTEM_USER, ...REDIS_IDENTITIES].map((id) => [id, randomPassword()]),
  ) as Record<RedisIdentity | 'default', string>;
  return {
    args: redisUserLines(passwords).flatMap((line) => {
      const [, ...words] = line.split(' ');
      return ['--user', ...words];
    }),
    url: (url) => withUser(url, REDIS_SYSTEM_USER, passwords.default),
    identities: (url) => {
      const out = {} as Record<RedisIdentity, string>;
      for (const id of REDIS_IDENTITIES) out[id] = withUser(url, id, passwords[id]);
      return out;
    },
  };
}

/** The address of every component of a run (`Infra.identities`, `SystemOptions.identities`). */
export interface InfraIdentities {
  nats: Readonly<Record<NatsIdentity, string>>;
  redis: Readonly<Record<RedisIdentity, string>>;
}

/**
 * Every component on one address: a server given by NATS_URL / REDIS_URL, whose users the testkit
 * does not know (then nothing proves the permissions in that run).
 */
export function sharedIdentities<I extends string>(url: string, ids: readonly I[]): Record<I, string> {
  return Object.fromEntries(ids.map((id) => [id, url])) as Record<I, string>;
}

/** The environment variable a NATS server reads a component's password from (the chart's authorization file). */
export function natsPasswordVariable(id: NatsIdentity): string {
  return `CDS_NATS_${id.toUpperCase()}_PASSWORD`;
}

/** The placeholder of a component's password in the chart's Redis ACL file (filled by `envsubst`). */
export function redisPasswordVariable(id: RedisIdentity): string {
  return `CDS_REDIS_${id.toUpperCase()}_PASSWORD`;
}

/**
 * The files the chart ships for the external NATS and Redis servers (charts/commodity-data/files/),
 * generated from the rules above: `node libs/testkit/scripts/chart-acl.ts` writes them,
 * test/deploy/identities.unit.spec.ts fails when they differ.
 */
export function chartAclFiles(): Record<string, string> {
  const generated = (comment: string) =>
    `${comment} Generated from libs/testkit/src/identities.ts by \`node libs/testkit/scripts/chart-acl.ts\`; do not edit.\n`;
  const nats = [
    generated('#'),
    '# The NATS users of commodity-data, one per component (docs/operations.md "Credentials"). Include it in',
    '# the nats-server config (`include ./cds-authorization.conf`) and give the server each password in its',
    '# environment (CDS_NATS_<COMPONENT>_PASSWORD); each component gets nats://<component>:<password>@host:4222',
    '# in the Secret `nats.existingSecret`. Add your own administration user to the list if you need one.',
    natsAuthorizationConfig(
      NATS_IDENTITIES.map((id) => ({
        user: id,
        password: `$${natsPasswordVariable(id)}`,
        permissions: NATS_PERMISSIONS[id],
      })),
    ),
  ].join('\n');
  const redis = [
    generated('#'),
    '# The Redis ACL users of commodity-data (docs/operations.md "Credentials"), as redis.conf `user`',
    '# directives. Fill in the passwords (`envsubst < redis-users.conf > /etc/redis/cds-users.conf`) and',
    '# `include /etc/redis/cds-users.conf` in redis.conf (not as an `aclfile`, which takes no comments);',
    '# each component gets redis://<component>:<password>@host:6379 in the Secret `redis.existingSecret`.',
    '# The default user is off: add your own administration user if you need one.',
    'user default off',
    ...REDIS_IDENTITIES.map((id) => `user ${id} on >\${${redisPasswordVariable(id)}} ${REDIS_ACL_RULES[id]}`),
    '',
  ].join('\n');
  return { 'files/nats-authorization.conf': nats, 'files/redis-users.conf': redis };
}
