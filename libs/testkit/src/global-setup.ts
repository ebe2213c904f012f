// Vitest globalSetup for the int and e2e projects: starts the shared servers once per run (in
// the main vitest process) and hands their URLs to specs via provide/inject. Specs that need to
// kill or restart a server start their own with startNats/startRedis/startMongo instead.
import type { TestProject } from 'vitest/node';
import { startInfra } from './infra.ts';
import './provided-context.ts';

/** Starts the infrastructure; the returned function is vitest's teardown. */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const infra = await startInfra();
  try {
    project.provide('natsUrl', infra.natsUrl);
    project.provide('redisUrl', infra.redisUrl);
    project.provide('mongoUrl', infra.mongoUrl);
    project.provide('mongoFlavor', infra.mongoFlavor);
    project.provide('identities', infra.identities);
    project.provide('infraSources', infra.sources);
  } catch (err) {
    await infra.stop();
    throw err;
  }
  return () => infra.stop();
}
