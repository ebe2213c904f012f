import { startMongo, waitUntil, type MongoHandle } from '@cds/testkit';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors.ts';
import { isFerretDB } from '../ferretdb.ts';
import { createReadModelStore } from './store.ts';

describe('createReadModelStore: choosing the adapter', () => {
  let server: MongoHandle | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('chooses from buildInfo on the first call; a server down then fails the call, and the choice is made again once it is back', async () => {
    server = await startMongo();
    // Connected, so the client's topology outlives the outage (a client that never connected
    // closes it on its first failure: a driver matter, not the store's).
    const client = await new MongoClient(server.url, { serverSelectionTimeoutMS: 500 }).connect();
    try {
      const store = createReadModelStore(client.db('choice'), { timeoutMs: 2_000 });
      await server.kill('SIGKILL');
      const down: unknown = await store.catalogEntries().catch((e: unknown) => e);
      expect(down).toBeInstanceOf(StoreUnavailableError);
      await expect(store.adapter()).rejects.toBeDefined();
      await server.restart();
      // The driver finds the server again on its own schedule (a monitor check, then a 500 ms
      // server selection): retry while the store still says unavailable; any other error fails.
      let entries: unknown;
      let fatal: unknown;
      await waitUntil(
        'a read from the restarted server',
        async () => {
          try {
            entries = await store.catalogEntries();
          } catch (e) {
            if (!(e instanceof StoreUnavailableError)) fatal = e;
            throw e;
          }
        },
        20_000,
        { giveUp: () => (fatal === undefined ? undefined : (fatal as Error)) },
      );
      expect(entries).toEqual([]);
      const expected = (await isFerretDB(client.db('admin'))) ? 'ferretdb' : 'mongodb';
      expect(await store.adapter()).toBe(expected);
    } finally {
      await client.close();
    }
  });
});
