import type { ProvidedContext } from 'vitest';
import type { InfraSource, MongoFlavor } from './types.ts';

// What the testkit globalSetup hands to specs through vitest `provide`/`inject`.
declare module 'vitest' {
  export interface ProvidedContext {
    natsUrl: string;
    redisUrl: string;
    mongoUrl: string;
    /** `ferretdb` means FerretDB 1.x: no transactions, no change streams. */
    mongoFlavor: MongoFlavor;
    infraSources: { nats: InfraSource; redis: InfraSource; mongo: InfraSource };
  }
}

/** The shared servers of a test run, as specs see them (`getTestInfra()`). */
export type TestInfraContext = Pick<
  ProvidedContext,
  'natsUrl' | 'redisUrl' | 'mongoUrl' | 'mongoFlavor' | 'infraSources'
>;
