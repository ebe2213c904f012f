import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createHashScheduler, type HashPriority, type HashSchedulerLimits } from './hash-scheduler.ts';

/**
 * scrypt parameters (docs/dashboard-security.md): OWASP's current minimum, N = 2^17, r = 8, p = 1,
 * needs 128·N·r = 128 MiB of memory per hash, 0.5–1 s on one core; 16-byte random salt; 32-byte
 * derived key. They are stored with every hash: older hashes still verify, and are re-hashed at
 * the next successful log-in (`needsRehash`).
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}
export const DEFAULT_SCRYPT: Readonly<ScryptParams> = { N: 2 ** 17, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Stored parameters past these are refused, not run: a corrupt hash must not cost gigabytes. */
const MAX_SCRYPT: Readonly<ScryptParams> = { N: 2 ** 20, r: 16, p: 16 };

export const PASSWORD_MIN = 12;
/** Longer input is refused before hashing (no multi-megabyte KDF input). */
export const PASSWORD_MAX = 128;

/**
 * The top 10,000 passwords of a public breach corpus and its longer entries (SOURCES note beside
 * the file), plus words of this service and long keyboard and digit runs the list lacks. Read once,
 * when this module loads: it is data of the release, like the plan table.
 */
const COMMON: ReadonlySet<string> = new Set([
  ...readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line !== ''),
  'password1234',
  'passwordpassword',
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456789012345',
  '1234567890123456',
  'qwertyuiopas',
  'qwertyuiop123',
  'qwertyuiopasdf',
  'asdfghjkl123',
  'letmeinletmein',
  'iloveyou1234',
  'changeme1234',
  'welcome12345',
  'commoditydata',
  'commoditydata1',
  'commodity data',
  'commoditydataservice',
]);

/** Why a password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, email = ''): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  if (new Set(password).size < 5) return 'Use more different characters.';
  // As the hash sees it (NFKC), so a look-alike form of a listed password is refused too.
  const lower = password.normalize('NFKC').toLowerCase();
  if (COMMON.has(lower)) return 'This password is too common; choose another.';
  const local = email.toLowerCase().split('@')[0] ?? '';
  if (local.length >= 4 && lower.includes(local)) return 'Do not use your e-mail address in the password.';
  return null;
}

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  // Node refuses scrypt above `maxmem` (32 MiB by default); the work needs 128·N·r·p bytes, so
  // allow twice that for OpenSSL's own overhead.
  const maxmem = 2 * 128 * params.N * params.r * params.p;
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Hashes a password as `scrypt$N$r$p$<salt b64>$<key b64>`. */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface StoredHash {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

/** A stored hash taken apart, or null when it is malformed or asks for more than MAX_SCRYPT. */
function parseStored(stored: string): StoredHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return null;
  if (N > MAX_SCRYPT.N || r > MAX_SCRYPT.r || p > MAX_SCRYPT.p) return null;
  const key = Buffer.from(parts[5] ?? '', 'base64');
  if (key.length !== KEY_BYTES) return null;
  return { params: { N, r, p }, salt: Buffer.from(parts[4] ?? '', 'base64'), key };
}

/** Checks a password against a stored hash in constant time; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStored(stored);
  if (parsed === null) return false;
  const actual = await derive(password, parsed.salt, parsed.params);
  return timingSafeEqual(actual, parsed.key);
}

export { AnonymousHashBudgetError, PasswordHasherBusyError, type HashPriority } from './hash-scheduler.ts';

export interface PasswordHasher {
  /** Hashes a new password; `priority` says whose (see HashPriority). */
  hash(password: string, priority: HashPriority): Promise<string>;
  verify(password: string, stored: string, priority: HashPriority): Promise<boolean>;
  /** Whether a stored hash was made with weaker parameters than new ones get (then re-hash it). */
  needsRehash(stored: string): boolean;
  /**
   * Spends the same work as a real check when there is no user, so "no such user" and "wrong
   * password" take as long as each other (always anonymous: nobody is signed in).
   */
  burn(password: string): Promise<void>;
}

export type HasherLimits = HashSchedulerLimits;

/**
 * One at a time by default: the dashboard's pod has 384 MiB, and libuv would otherwise run four
 * 128 MiB hashes at once (its thread pool). A wait of at most 16 hashes (~1 s each on a busy core)
 * stays inside the 30 s request timeout. Anonymous hashes (log-in, sign-up) get a budget of 10 at
 * once, refilled at one every 2 s, and at most 8 waiting: under a flood they take about 60 % of the
 * hasher (1.2 s a hash measured on the CI machine), and a signed-in user's hash goes first.
 */
export const DEFAULT_HASHER_LIMITS: Readonly<HasherLimits> = {
  concurrent: 1,
  waiting: 16,
  anonymousWaiting: 8,
  anonymous: { burst: 10, perSecond: 0.5 },
};

export function createPasswordHasher(
  params: ScryptParams = DEFAULT_SCRYPT,
  limits: HasherLimits = DEFAULT_HASHER_LIMITS,
  clock: () => number = Date.now,
): PasswordHasher {
  const scheduler = createHashScheduler(limits, clock);
  // The dummy hash `burn` checks against, made once (a fixed, known input), in the queue like any
  // hash (never a second 128 MiB at once), ahead of anonymous work and without their budget.
  let dummy: Promise<string> | undefined;
  return {
    hash: (password, priority) => scheduler.run(priority, () => hashPassword(password, params)),
    verify: (password, stored, priority) => scheduler.run(priority, () => verifyPassword(password, stored)),
    needsRehash: (stored) => {
      const parsed = parseStored(stored);
      if (parsed === null) return false;
      const old = parsed.params;
      return old.N < params.N || old.r < params.r || old.p < params.p;
    },
    burn: async (password) => {
      // Made at the first use; a failed attempt is not kept as the dummy.
      dummy ??= scheduler
        .run('user', () => hashPassword('not-a-real-password-0000', params))
        .catch((err: unknown) => {
          dummy = undefined;
          throw err;
        });
      const stored = await dummy;
      await scheduler.run('anonymous', () => verifyPassword(password, stored));
    },
  };
}
