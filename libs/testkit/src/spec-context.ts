import { inject } from 'vitest';
import type { TestInfraContext } from './provided-context.ts';

/**
 * Inside a spec of the `int` or `e2e` project: the URLs of the shared servers started by the
 * testkit globalSetup. Throws when the spec runs in a project without that globalSetup.
 */
export function getTestInfra(): TestInfraContext {
  const natsUrl = inject('natsUrl');
  if (natsUrl === undefined) {
    throw new Error('no test infrastructure: run this spec in the int or e2e project (testkit globalSetup)');
  }
  return {
    natsUrl,
    redisUrl: inject('redisUrl'),
    mongoUrl: inject('mongoUrl'),
    mongoFlavor: inject('mongoFlavor'),
    infraSources: inject('infraSources'),
    identities: inject('identities'),
  };
}
