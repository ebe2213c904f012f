import { MAX_COMMODITY_ID_LENGTH } from '@cds/contracts';
import { NotFoundError } from '@cds/http';
import type { CatalogDoc } from '@cds/read-models';
import type { RouteContext } from '../http/route-context.ts';

/** A commodity the catalog does not list is a 404 on slug (one longer than any catalog id, without a read). */
export async function requireCommodity(ctx: RouteContext, slug: string): Promise<CatalogDoc> {
  if (slug.length > MAX_COMMODITY_ID_LENGTH) {
    throw new NotFoundError(
      `No commodity has an id of ${slug.length} characters (catalog ids have at most ${MAX_COMMODITY_ID_LENGTH}).`,
      'slug',
    );
  }
  const doc = await ctx.repository.getCommodity(slug);
  if (doc === null) throw new NotFoundError(`No commodity '${slug}'.`, 'slug');
  return doc;
}
