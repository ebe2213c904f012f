import { MAX_WEBHOOK_ENDPOINTS } from '@cds/contracts';
import { ensureIndexes } from '@cds/store';
import type { Collection } from 'mongodb';
import { newEndpoint, newEndpointId, toEndpoint, unheld, type DeliveryDoc } from './documents.ts';
import {
  insertUnique,
  pickDue,
  recordAttempt,
  sharedOperations,
  SHARED_INDEXES,
  withEndpoints,
  type StoreContext,
} from './common.ts';
import type { ClaimedDelivery, WebhookStores } from './port.ts';

/**
 * A claim document: its unique `_id` makes "the claim of generation N of delivery X", "the
 * disabling of endpoint E for the failing run that began at T", or "place N of account A's
 * endpoints" one insert that only one process wins. It is the one compare-and-set FerretDB 1.x
 * offers: it evaluates an update's filter apart from the write, so a filtered update alone is no
 * compare-and-set.
 */
interface ClaimDoc {
  _id: string;
  account_id: string;
  endpoint_id: string;
  delivery_id: string | null;
  owner: string;
  at: Date;
}

export const CLAIMS = 'claims';

/** The claim of place `n` of an account's endpoints. */
const endpointPlaceId = (accountId: string, n: number) => `${accountId}#endpoint-place-${n}`;
/** The claim of generation `lease` of a delivery. */
const claimIdOf = (deliveryId: string, lease: number) => `${deliveryId}#${lease}`;
/** The claim of disabling an endpoint for the failing run that began at `since`. */
const disableClaimId = (endpointId: string, since: Date) => `disable:${endpointId}:${since.getTime()}`;

/** The store's context with the claims collection. */
interface FerretContext extends StoreContext {
  claims: Collection<ClaimDoc>;
}

/** Inserts a claim; false when another process holds it already. */
const takeClaim = (ctx: FerretContext, doc: Omit<ClaimDoc, 'owner'>) =>
  insertUnique(ctx, 'insert a claim', ctx.claims, { ...doc, owner: ctx.owner });

/** The delivery is still `delivering` under this claim's lease, and the lease has not run out. */
async function stillHeld(ctx: FerretContext, claim: ClaimedDelivery): Promise<boolean> {
  if (ctx.clock() > claim.leaseUntil.getTime()) return false;
  const doc = await ctx.run('read a leased delivery', (o) => ctx.deliveries.findOne({ _id: claim.delivery.id }, o));
  return doc !== null && doc.lease === claim.lease && doc.status === 'delivering';
}

/** After a failed attempt: starts the failing run, or disables the endpoint once it has lasted `disableAfterMs`. */
async function trackFailure(ctx: FerretContext, endpointId: string, at: Date): Promise<{ disabled: boolean }> {
  const { endpoints, run } = ctx;
  const endpoint = await run('read the endpoint of a failure', (o) => endpoints.findOne({ _id: endpointId }, o));
  if (endpoint === null) return { disabled: false };
  if (endpoint.failing_since === null) {
    await run('mark an endpoint failing', ({ maxTimeMS }) =>
      endpoints.updateOne({ _id: endpointId }, { $set: { failing_since: at } }, { maxTimeMS }),
    );
    return { disabled: false };
  }
  if (!endpoint.enabled || at.getTime() - endpoint.failing_since.getTime() < ctx.disableAfterMs) {
    return { disabled: false };
  }
  const won = await takeClaim(ctx, {
    _id: disableClaimId(endpointId, endpoint.failing_since),
    account_id: endpoint.account_id,
    endpoint_id: endpointId,
    delivery_id: null,
    at,
  });
  if (!won) return { disabled: false };
  await run('disable a failing endpoint', ({ maxTimeMS }) =>
    endpoints.updateOne(
      { _id: endpointId },
      { $set: { enabled: false, disabled_reason: 'failing', updated_at: at } },
      { maxTimeMS },
    ),
  );
  return { disabled: true };
}

/** Writes the fields giving a held delivery back, if this claim still holds it. */
async function giveBack(ctx: FerretContext, claim: ClaimedDelivery, status: 'pending' | 'failed', what: string) {
  if (!(await stillHeld(ctx, claim))) return;
  await ctx.run(what, ({ maxTimeMS }) =>
    ctx.deliveries.updateOne(
      { _id: claim.delivery.id },
      { $set: unheld(claim.delivery.attempts, status) },
      { maxTimeMS },
    ),
  );
}

async function createEndpoint(
  ctx: FerretContext,
  ...[accountId, contactEmail, input]: Parameters<WebhookStores['createEndpoint']>
): ReturnType<WebhookStores['createEndpoint']> {
  const { endpoints, run } = ctx;
  const count = await run('count endpoints', (o) => endpoints.countDocuments({ account_id: accountId }, o));
  if (count >= MAX_WEBHOOK_ENDPOINTS) return 'limit_reached';
  const at = ctx.now();
  const id = newEndpointId();
  // One of the account's MAX_WEBHOOK_ENDPOINTS places, taken by a claim with a unique id (freed
  // with the endpoint's claims when it is deleted): creates racing past the count above cannot
  // go over the limit.
  let placed = false;
  for (let n = 0; n < MAX_WEBHOOK_ENDPOINTS && !placed; n += 1) {
    placed = await takeClaim(ctx, {
      _id: endpointPlaceId(accountId, n),
      account_id: accountId,
      endpoint_id: id,
      delivery_id: null,
      at,
    });
  }
  if (!placed) return 'limit_reached';
  const { doc, secret } = newEndpoint(id, accountId, contactEmail, input, at);
  await run('create an endpoint', ({ maxTimeMS }) => endpoints.insertOne(doc, { maxTimeMS }));
  return { endpoint: toEndpoint(doc), secret };
}

async function deleteEndpoint(ctx: FerretContext, accountId: string, id: string): Promise<boolean> {
  const { endpoints, deliveries, claims, run } = ctx;
  const deleted = await run('delete an endpoint', ({ maxTimeMS }) =>
    endpoints.deleteOne({ _id: id, account_id: accountId }, { maxTimeMS }),
  );
  if (deleted.deletedCount === 0) return false;
  await run('delete its deliveries', ({ maxTimeMS }) => deliveries.deleteMany({ endpoint_id: id }, { maxTimeMS }));
  await run('delete its claims', ({ maxTimeMS }) => claims.deleteMany({ endpoint_id: id }, { maxTimeMS }));
  return true;
}

async function deleteAccount(ctx: FerretContext, accountId: string): Promise<void> {
  const { endpoints, deliveries, claims, run } = ctx;
  await run('delete the account endpoints', ({ maxTimeMS }) =>
    endpoints.deleteMany({ account_id: accountId }, { maxTimeMS }),
  );
  await run('delete the account deliveries', ({ maxTimeMS }) =>
    deliveries.deleteMany({ account_id: accountId }, { maxTimeMS }),
  );
  await run('delete the account claims', ({ maxTimeMS }) =>
    claims.deleteMany({ account_id: accountId }, { maxTimeMS }),
  );
}

/** Claims one due delivery for its next generation and leases it; undefined when another notifier won it. */
async function leaseOne(
  ctx: FerretContext,
  doc: DeliveryDoc,
  at: Date,
): Promise<{ doc: DeliveryDoc; lease: number; leaseUntil: Date } | undefined> {
  const lease = doc.lease + 1;
  const won = await takeClaim(ctx, {
    _id: claimIdOf(doc._id, lease),
    account_id: doc.account_id,
    endpoint_id: doc.endpoint_id,
    delivery_id: doc._id,
    at,
  });
  if (!won) return undefined;
  // The attempt counts from its start: one cut short (a notifier killed mid-POST) is counted
  // too, and the next one is told by its CDS-Delivery-Attempt. release/abandon take it back.
  const set = {
    status: 'delivering' as const,
    attempts: doc.attempts + 1,
    lease,
    lease_owner: ctx.owner,
    lease_until: new Date(at.getTime() + ctx.leaseMs),
  };
  const updated = await ctx.run('lease a delivery', ({ maxTimeMS }) =>
    ctx.deliveries.updateOne({ _id: doc._id }, { $set: set }, { maxTimeMS }),
  );
  return updated.matchedCount === 1 ? { doc: { ...doc, ...set }, lease, leaseUntil: set.lease_until } : undefined;
}

async function claimDue(ctx: FerretContext, limit: number): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const at = ctx.now();
  const candidates = await pickDue(ctx, at, limit);
  // Each candidate is claimed on its own (in parallel): losing one to another notifier is normal.
  const attempts = await Promise.all(candidates.map((doc) => leaseOne(ctx, doc, at)));
  return withEndpoints(
    ctx,
    attempts.filter((h) => h !== undefined),
  );
}

async function sweepClaims(ctx: FerretContext): Promise<number> {
  const before = new Date(ctx.clock() - 2 * ctx.leaseMs);
  const swept = await ctx.run('sweep old lease claims', ({ maxTimeMS }) =>
    ctx.claims.deleteMany({ delivery_id: { $ne: null }, at: { $lt: before } }, { maxTimeMS }),
  );
  return swept.deletedCount;
}

/**
 * The webhook store on FerretDB 1.x: the shared operations, and exclusion by claim documents
 * (`claims`) where MongoDB would filter an update.
 *
 * Updates name a document by `_id` alone: FerretDB 1.24 finds a document by `_id` without a scan
 * but evaluates any other filter field after scanning the whole collection in its own process
 * (measured: an update filtered on `_id` and `lease` took 300 ms at 300 deliveries), so such a
 * filter would be slow and still no compare-and-set. What a filter would guard is checked on the
 * document just read, and exclusion comes from the claims and the lease's end.
 */
export async function createFerretDbAdapter(store: StoreContext): Promise<WebhookStores> {
  const ctx: FerretContext = { ...store, claims: store.db.collection<ClaimDoc>(CLAIMS) };
  await ctx.run('ensure webhook indexes', async () => {
    await ensureIndexes(ctx.endpoints, SHARED_INDEXES.endpoints);
    await ensureIndexes(ctx.deliveries, SHARED_INDEXES.deliveries);
    await ensureIndexes(ctx.claims, [
      { name: 'delivery', key: { delivery_id: 1 } },
      { name: 'endpoint', key: { endpoint_id: 1 } },
      { name: 'account', key: { account_id: 1 } },
    ]);
  });
  return {
    adapter: 'ferretdb',
    ...sharedOperations(store),
    createEndpoint: (...args) => createEndpoint(ctx, ...args),
    deleteEndpoint: (accountId, id) => deleteEndpoint(ctx, accountId, id),
    deleteAccount: (accountId) => deleteAccount(ctx, accountId),
    claimDue: (limit) => claimDue(ctx, limit),
    recordAttempt: (claim, attempt) =>
      recordAttempt(ctx, claim, attempt, {
        // The lease was checked on the document just read (see above).
        record: async (doc, set) => {
          const updated = await ctx.run('record an attempt', ({ maxTimeMS }) =>
            ctx.deliveries.updateOne({ _id: doc._id }, { $set: set }, { maxTimeMS }),
          );
          return updated.matchedCount === 1;
        },
        trackFailure: (endpointId, at) => trackFailure(ctx, endpointId, at),
      }),
    release: (claim) => giveBack(ctx, claim, 'pending', 'release a delivery'),
    abandon: (claim) => giveBack(ctx, claim, 'failed', 'abandon a delivery'),
    sweepClaims: () => sweepClaims(ctx),
  };
}
