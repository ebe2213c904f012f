import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { readFileSync } from 'node:fs';

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

/** More password checks are waiting than the dashboard will queue: a 503, try again shortly. */
export class PasswordHasherBusyError extends Error {
  override readonly name = 'PasswordHasherBusyError';
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** Whether a stored hash was made with weaker parameters than new ones get (then re-hash it). */
  needsRehash(stored: string): boolean;
  /**
   * Spends the same work as a real check when there is no user, so "no such user" and "wrong
   * password" take as long as each other.
   */
  burn(password: string): Promise<void>;
}

export interface HasherLimits {
  /** Hashes computed at once: each holds 128·N·r·p bytes (128 MiB at the defaults). */
  concurrent: number;
  /** Hashes waiting for their turn; past this a check fails at once with PasswordHasherBusyError. */
  waiting: number;
}

/**
 * One at a time by default: the dashboard's pod has 384 MiB, and libuv would otherwise run four
 * 128 MiB hashes at once (its thread pool). A wait of at most 16 hashes (~1 s each on a busy core)
 * stays inside the 30 s request timeout.
 */
export const DEFAULT_HASHER_LIMITS: Readonly<HasherLimits> = { concurrent: 1, waiting: 16 };

/** Runs work at most `concurrent` at a time, queueing at most `waiting` more. */
function createGate(limits: HasherLimits): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const queue: (() => void)[] = [];
  return async (work) => {
    if (running < limits.concurrent) {
      running++;
    } else {
      if (queue.length >= limits.waiting) throw new PasswordHasherBusyError('too many password checks waiting');
      // The slot is handed over by the one finishing (`running` stays as it is).
      await new Promise<void>((resolve) => queue.push(resolve));
    }
    try {
      return await work();
    } finally {
      const next = queue.shift();
      if (next === undefined) running--;
      else next();
    }
  };
}

export function createPasswordHasher(
  params: ScryptParams = DEFAULT_SCRYPT,
  limits: HasherLimits = DEFAULT_HASHER_LIMITS,
): PasswordHasher {
  const gate = createGate(limits);
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => gate(() => hashPassword(password, params)),
    verify: (password, stored) => gate(() => verifyPassword(password, stored)),
    needsRehash: (stored) => {
      const parsed = parseStored(stored);
      if (parsed === null) return false;
      const old = parsed.params;
      return old.N < params.N || old.r < params.r || old.p < params.p;
    },
    burn: async (password) => {
      // Made at the first use; a failed attempt (a full queue) is not kept as the dummy.
      dummy ??= gate(() => hashPassword('not-a-real-password-0000', params)).catch((err: unknown) => {
        dummy = undefined;
        throw err;
      });
      const stored = await dummy;
      await gate(() => verifyPassword(password, stored));
    },
  };
}
