import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt parameters (docs/dashboard-security.md): N = 2^15, r = 8, p = 1 needs 128·N·r = 32 MiB
 * of memory per hash, ~60 ms on one core; 16-byte random salt; 32-byte derived key. They are
 * stored with every hash, so raising them later only affects new and re-hashed passwords.
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}
export const DEFAULT_SCRYPT: Readonly<ScryptParams> = { N: 2 ** 15, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;

export const PASSWORD_MIN = 12;
/** Longer input is refused before hashing (no multi-megabyte KDF input). */
export const PASSWORD_MAX = 128;

const COMMON = new Set([
  'password1234',
  'passwordpassword',
  '123456789012',
  'qwertyuiopas',
  'letmeinletmein',
  'iloveyou1234',
  'administrator',
  'changeme1234',
  'welcome12345',
  'commoditydata',
]);

/** Why a password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, email = ''): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  if (new Set(password).size < 5) return 'Use more different characters.';
  const lower = password.toLowerCase();
  if (COMMON.has(lower)) return 'This password is too common; choose another.';
  const local = email.toLowerCase().split('@')[0] ?? '';
  if (local.length >= 4 && lower.includes(local)) return 'Do not use your e-mail address in the password.';
  return null;
}

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r };
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

/** Checks a password against a stored hash in constant time; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return false;
  const salt = Buffer.from(parts[4] ?? '', 'base64');
  const expected = Buffer.from(parts[5] ?? '', 'base64');
  if (expected.length !== KEY_BYTES) return false;
  const actual = await derive(password, salt, { N, r, p });
  return timingSafeEqual(actual, expected);
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /**
   * Spends the same work as a real check when there is no user, so "no such user" and "wrong
   * password" take as long as each other.
   */
  burn(password: string): Promise<void>;
}

export function createPasswordHasher(params: ScryptParams = DEFAULT_SCRYPT): PasswordHasher {
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => hashPassword(password, params),
    verify: verifyPassword,
    burn: async (password) => {
      dummy ??= hashPassword('not-a-real-password-0000', params);
      await verifyPassword(password, await dummy);
    },
  };
}
