import type { ProvidedContext } from 'vitest';
import type { InfraIdentities } from './identities.ts';
import type { InfraSource, MongoFlavor } from './types.ts';

// What the testkit globalSetup hands to specs through vitest `provide`/`inject`.
declare module 'vitest' {
  export interface ProvidedContext {
    /** NATS and Redis: the user that may do everything (setup in tests). */
    natsUrl: string;
    redisUrl: string;
    mongoUrl: string;
    /** `ferretdb` means FerretDB 1.x: no transactions, no change streams. */
    mongoFlavor: MongoFlavor;
    infraSources: { nats: InfraSource; redis: InfraSource; mongo: InfraSource };
    /** Each component's own NATS and Redis address (a process started as that component uses it). */
    identities: InfraIdentities;
  }
}

/** The shared servers of a test run, as specs see them (`getTestInfra()`). */
export type TestInfraContext = Pick<
  ProvidedContext,
  'natsUrl' | 'redisUrl' | 'mongoUrl' | 'mongoFlavor' | 'infraSources' | 'identities'
>;
