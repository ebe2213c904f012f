import { readLocalEnv, LOCAL_ENV_PATH, type LocalEnv } from '../local-env.ts';

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
