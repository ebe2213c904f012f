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
  mongoUrl: z.string().min(1),
  redisUrl: z.string().min(1),
  adminUrl: z.string().min(1),
  adminToken: z.string().min(1),
  gatewayUrl: z.string().min(1),
});
export type LocalEnv = z.infer<typeof LocalEnv>;

/** `<repo>/.cds/local.json`, found relative to this file (services/ingest/src). */
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
