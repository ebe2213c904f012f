import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Returns the full path of an executable named `command` on `PATH`, or undefined. */
export function findOnPath(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, command);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** True when `path` is an executable regular file (symlinks followed). */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Which program serves the MongoDB API locally: mongod when installed, else our FerretDB build. */
export type MongoBinary = { flavor: 'mongod' | 'ferretdb'; path: string };

/**
 * Picks the MongoDB API server binary: `mongod` on PATH, else `$CDS_BIN_DIR/cds-ferretdb`
 * (linked there by scripts/bootstrap.sh), else `cds-ferretdb` on PATH.
 */
export function resolveMongoBinary(env: NodeJS.ProcessEnv = process.env): MongoBinary | undefined {
  const mongod = findOnPath('mongod', env);
  if (mongod !== undefined) return { flavor: 'mongod', path: mongod };
  const binDir = env.CDS_BIN_DIR;
  if (binDir !== undefined && binDir !== '' && isExecutable(join(binDir, 'cds-ferretdb'))) {
    return { flavor: 'ferretdb', path: join(binDir, 'cds-ferretdb') };
  }
  const ferret = findOnPath('cds-ferretdb', env);
  return ferret === undefined ? undefined : { flavor: 'ferretdb', path: ferret };
}

/** Resolves a required binary or throws an error that says how to get it. */
export function requireBinary(command: string, hint: string, env: NodeJS.ProcessEnv = process.env): string {
  const found = command.includes('/') ? (isExecutable(command) ? command : undefined) : findOnPath(command, env);
  if (found === undefined) {
    throw new Error(`${command} was not found on PATH; ${hint}`);
  }
  return found;
}
