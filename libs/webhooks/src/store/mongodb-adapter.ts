import { MAX_WEBHOOK_ENDPOINTS } from '@cds/contracts';
import { ensureIndexes, isDuplicateKeyError } from '@cds/store';
import type { Collection } from 'mongodb';
import { dueFilter, newEndpoint, newEndpointId, toEndpoint, unheld } from './documents.ts';
import {
  pickDue,
  recordAttempt,
  sharedOperations,
  SHARED_INDEXES,
  withEndpoints,
  type StoreContext,
} from './common.ts';
import type { ClaimedDelivery, WebhookStores } from './port.ts';

/** The ids of an account's endpoints, one per place it has (at most MAX_WEBHOOK_ENDPOINTS). */
interface PlacesDoc {
  _id: string;
  endpoints: string[];
}

export const PLACES = 'endpoint_places';

/** The store's context with the places collection. */
interface MongoContext extends StoreContext {
  places: Collection<PlacesDoc>;
}

/** Takes a place for `id` among the account's; false when they are all taken. */
async function takePlace(ctx: MongoContext, accountId: string, id: string): Promise<boolean> {
  const { places, run } = ctx;
  try {
    await run('open the endpoint places', ({ maxTimeMS }) =>
      places.updateOne({ _id: accountId }, { $setOnInsert: { endpoints: [] } }, { upsert: true, maxTimeMS }),
    );
  } catch (err) {
    // Two first creates of an account upserted at once (MongoDB retries that itself; FerretDB does not).
    if (!isDuplicateKeyError(err)) throw err;
  }
  const pushed = await run('take an endpoint place', ({ maxTimeMS }) =>
    places.updateOne(
      { _id: accountId, [`endpoints.${MAX_WEBHOOK_ENDPOINTS - 1}`]: { $exists: false } },
      { $push: { endpoints: id } },
      { maxTimeMS },
    ),
  );
  return pushed.modifiedCount === 1;
}

/** Writes the fields giving a held delivery back, if this claim still holds it. */
async function giveBack(ctx: MongoContext, claim: ClaimedDelivery, status: 'pending' | 'failed', what: string) {
  if (ctx.clock() > claim.leaseUntil.getTime()) return;
  await ctx.run(what, ({ maxTimeMS }) =>
    ctx.deliveries.updateOne(
      { _id: claim.delivery.id, lease: claim.lease, status: 'delivering' },
      { $set: unheld(claim.delivery.attempts, status) },
      { maxTimeMS },
    ),
  );
}

async function createEndpoint(
  ctx: MongoContext,
  ...[accountId, contactEmail, input]: Parameters<WebhookStores['createEndpoint']>
): ReturnType<WebhookStores['createEndpoint']> {
  const { endpoints, run } = ctx;
  // The count also holds endpoints created before places were kept (they have none).
  const count = await run('count endpoints', (o) => endpoints.countDocuments({ account_id: accountId }, o));
  if (count >= MAX_WEBHOOK_ENDPOINTS) return 'limit_reached';
  const id = newEndpointId();
  if (!(await takePlace(ctx, accountId, id))) return 'limit_reached';
  const { doc, secret } = newEndpoint(id, accountId, contactEmail, input, ctx.now());
  await run('create an endpoint', ({ maxTimeMS }) => endpoints.insertOne(doc, { maxTimeMS }));
  return { endpoint: toEndpoint(doc), secret };
}

async function deleteEndpoint(ctx: MongoContext, accountId: string, id: string): Promise<boolean> {
  const { endpoints, deliveries, places, run } = ctx;
  const deleted = await run('delete an endpoint', ({ maxTimeMS }) =>
    endpoints.deleteOne({ _id: id, account_id: accountId }, { maxTimeMS }),
  );
  if (deleted.deletedCount === 0) return false;
  await run('delete its deliveries', ({ maxTimeMS }) => deliveries.deleteMany({ endpoint_id: id }, { maxTimeMS }));
  await run('free its place', ({ maxTimeMS }) =>
    places.updateOne({ _id: accountId }, { $pull: { endpoints: id } }, { maxTimeMS }),
  );
  return true;
}

async function deleteAccount(ctx: MongoContext, accountId: string): Promise<void> {
  const { endpoints, deliveries, places, run } = ctx;
  await run('delete the account endpoints', ({ maxTimeMS }) =>
    endpoints.deleteMany({ account_id: accountId }, { maxTimeMS }),
  );
  await run('delete the account deliveries', ({ maxTimeMS }) =>
    deliveries.deleteMany({ account_id: accountId }, { maxTimeMS }),
  );
  await run('delete the account places', ({ maxTimeMS }) => places.deleteOne({ _id: accountId }, { maxTimeMS }));
}

async function claimDue(ctx: MongoContext, limit: number): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const at = ctx.now();
  const leaseUntil = new Date(at.getTime() + ctx.leaseMs);
  const candidates = await pickDue(ctx, at, limit);
  // Each candidate is leased on its own (in parallel): losing one to another notifier is normal.
  // The attempt counts from its start (one cut short by a killed notifier too); release and
  // abandon take it back.
  const leased = await Promise.all(
    candidates.map((doc) =>
      ctx.run('lease a delivery', (o) =>
        ctx.deliveries.findOneAndUpdate(
          { _id: doc._id, lease: doc.lease, ...dueFilter(at) },
          {
            $set: { status: 'delivering', lease_owner: ctx.owner, lease_until: leaseUntil },
            $inc: { lease: 1, attempts: 1 },
          },
          { ...o, returnDocument: 'after' },
        ),
      ),
    ),
  );
  return withEndpoints(
    ctx,
    leased.filter((doc) => doc !== null).map((doc) => ({ doc, lease: doc.lease, leaseUntil })),
  );
}

/** After a failed attempt: starts the failing run, or disables the endpoint once it has lasted `disableAfterMs`. */
async function trackFailure(ctx: MongoContext, endpointId: string, at: Date): Promise<{ disabled: boolean }> {
  const { endpoints, run } = ctx;
  const endpoint = await run('read the endpoint of a failure', (o) => endpoints.findOne({ _id: endpointId }, o));
  if (endpoint === null) return { disabled: false };
  if (endpoint.failing_since === null) {
    await run('mark an endpoint failing', ({ maxTimeMS }) =>
      endpoints.updateOne({ _id: endpointId, failing_since: null }, { $set: { failing_since: at } }, { maxTimeMS }),
    );
    return { disabled: false };
  }
  if (!endpoint.enabled || at.getTime() - endpoint.failing_since.getTime() < ctx.disableAfterMs) {
    return { disabled: false };
  }
  const updated = await run('disable a failing endpoint', ({ maxTimeMS }) =>
    endpoints.updateOne(
      { _id: endpointId, enabled: true, failing_since: endpoint.failing_since },
      { $set: { enabled: false, disabled_reason: 'failing', updated_at: at } },
      { maxTimeMS },
    ),
  );
  return { disabled: updated.modifiedCount === 1 };
}

/**
 * The webhook store on MongoDB: the shared operations, and exclusion by updates whose filter
 * MongoDB applies atomically with the write on one document (no transactions, no claim documents).
 * A delivery's lease is its generation: claiming is an update filtered on the generation read (and
 * on still being due) that increments it, so of claimants racing for one delivery one matches; an
 * attempt, a release or an abandon is written only while the generation and `delivering` still
 * hold. An endpoint is disabled by an update filtered on `enabled` and on the failing run's start,
 * so one failure reports it. The places of an account's endpoints are an array in one document of
 * `endpoint_places`, pushed to only while it has fewer than MAX_WEBHOOK_ENDPOINTS.
 *
 * It runs on FerretDB too (the contract spec checks it there) but without the exclusion: FerretDB
 * 1.x evaluates an update's filter apart from the write (the FerretDB adapter's claims make up for it).
 */
export async function createMongoDbAdapter(store: StoreContext): Promise<WebhookStores> {
  const ctx: MongoContext = { ...store, places: store.db.collection<PlacesDoc>(PLACES) };
  await ctx.run('ensure webhook indexes', async () => {
    await ensureIndexes(ctx.endpoints, SHARED_INDEXES.endpoints);
    await ensureIndexes(ctx.deliveries, SHARED_INDEXES.deliveries);
  });
  return {
    adapter: 'mongodb',
    ...sharedOperations(store),
    createEndpoint: (...args) => createEndpoint(ctx, ...args),
    deleteEndpoint: (accountId, id) => deleteEndpoint(ctx, accountId, id),
    deleteAccount: (accountId) => deleteAccount(ctx, accountId),
    claimDue: (limit) => claimDue(ctx, limit),
    recordAttempt: (claim, attempt) =>
      recordAttempt(ctx, claim, attempt, {
        record: async (doc, set) => {
          const updated = await ctx.run('record an attempt', ({ maxTimeMS }) =>
            ctx.deliveries.updateOne(
              { _id: doc._id, lease: doc.lease, status: 'delivering' },
              { $set: set },
              { maxTimeMS },
            ),
          );
          return updated.matchedCount === 1;
        },
        trackFailure: (endpointId, at) => trackFailure(ctx, endpointId, at),
      }),
    release: (claim) => giveBack(ctx, claim, 'pending', 'release a delivery'),
    abandon: (claim) => giveBack(ctx, claim, 'failed', 'abandon a delivery'),
    // Leases live in the deliveries themselves: nothing to sweep.
    sweepClaims: () => Promise.resolve(0),
  };
}
