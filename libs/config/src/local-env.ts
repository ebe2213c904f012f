import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The file `npm start` leaves behind at the repository root (`.cds/local.json`): the addresses of
 * the system it started, so the CLIs work without any environment.
 */
export const LocalEnv = z.object({
  natsUrl: z.string().min(1),
  /** NATS as the admin's user: `npm run admin -- incident …` writes the incidents with it. */
  adminNatsUrl: z.string().min(1).optional(),
  mongoUrl: z.string().min(1),
  redisUrl: z.string().min(1),
  adminUrl: z.string().min(1),
  adminToken: z.string().min(1),
  gatewayUrl: z.string().min(1),
});
export type LocalEnv = z.infer<typeof LocalEnv>;

/** `<repo>/.cds/local.json`, found relative to this file (libs/config/src). */
export const LOCAL_ENV_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '.cds', 'local.json');

/**
 * Reads the local environment file: undefined when it does not exist; an Error naming the file
 * when it exists but is not valid.
 */
export function readLocalEnv(path: string = LOCAL_ENV_PATH): LocalEnv | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${path}: ${String(err)}`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON`, { cause: err });
  }
  const parsed = LocalEnv.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `${path} is not a valid local environment file: ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`,
    );
  }
  return parsed.data;
}

export interface Addresses {
  natsUrl?: string;
  adminUrl?: string;
  adminToken?: string;
}

/**
 * The system's addresses, each from the first place that has it: flags, then the environment
 * (NATS_URL, ADMIN_URL, ADMIN_TOKEN), then the `.cds/local.json` that `npm start` leaves behind.
 */
export function resolveAddresses(
  flags: Addresses,
  env: Record<string, string | undefined>,
  readLocal: () => LocalEnv | undefined = () => readLocalEnv(env.CDS_LOCAL_ENV ?? LOCAL_ENV_PATH),
): Addresses & { from: Record<keyof Addresses, 'flag' | 'env' | 'local' | 'none'> } {
  let local: LocalEnv | undefined | null = null;
  const fromLocal = () => {
    if (local === null) local = readLocal();
    return local;
  };
  const pick = (flag: string | undefined, envVar: string | undefined, localKey: keyof LocalEnv) => {
    if (flag !== undefined && flag !== '') return { value: flag, from: 'flag' as const };
    if (envVar !== undefined && envVar !== '') return { value: envVar, from: 'env' as const };
    const l = fromLocal();
    if (l !== undefined) return { value: l[localKey], from: 'local' as const };
    return { value: undefined, from: 'none' as const };
  };
  const nats = pick(flags.natsUrl, env.NATS_URL, 'natsUrl');
  const admin = pick(flags.adminUrl, env.ADMIN_URL, 'adminUrl');
  const token = pick(flags.adminToken, env.ADMIN_TOKEN, 'adminToken');
  return {
    ...(nats.value !== undefined ? { natsUrl: nats.value } : {}),
    ...(admin.value !== undefined ? { adminUrl: admin.value } : {}),
    ...(token.value !== undefined ? { adminToken: token.value } : {}),
    from: { natsUrl: nats.from, adminUrl: admin.from, adminToken: token.from },
  };
}
