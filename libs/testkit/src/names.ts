import { randomBytes } from 'node:crypto';

/**
 * A name unique to this call, safe as a MongoDB database name, a JetStream stream or consumer
 * name and a NATS subject token: lowercase letters, digits and `_`, at most 48 characters.
 * Each spec file calls it once per resource so parallel files never share state.
 */
export function uniqueName(prefix: string): string {
  const clean =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, '_')
      .slice(0, 30) || 't';
  return `${clean}_${process.pid.toString(36)}_${randomBytes(5).toString('hex')}`;
}
