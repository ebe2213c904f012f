import { isFerretDB } from '@cds/store';
import type { Db } from 'mongodb';
import { storeContext, type WebhookStoreSettings } from './common.ts';
import { createFerretDbAdapter } from './ferretdb-adapter.ts';
import { createMongoDbAdapter } from './mongodb-adapter.ts';
import type { WebhookAdapterName, WebhookStores } from './port.ts';

export interface WebhookStoreOptions extends WebhookStoreSettings {
  /** Use this adapter whatever the server (tests). Default: FerretDB when buildInfo has `ferretdbVersion`, else MongoDB. */
  adapter?: WebhookAdapterName;
}

/**
 * The webhook store on `db` (collections `endpoints`, `deliveries`, and the adapter's own), both
 * ports in one object: the dashboard takes it as `WebhookAdmin`, the notifier as `WebhookQueue`.
 * Asks the server which it is (unless `adapter` says) and ensures the indexes, so it rejects when
 * the database does not answer within the deadline (callers retry the start).
 */
export async function createWebhookStores(db: Db, opts: WebhookStoreOptions): Promise<WebhookStores> {
  const ctx = storeContext(db, opts);
  const adapter = opts.adapter ?? ((await isFerretDB(db, ctx.run)) ? 'ferretdb' : 'mongodb');
  return adapter === 'ferretdb' ? createFerretDbAdapter(ctx) : createMongoDbAdapter(ctx);
}
