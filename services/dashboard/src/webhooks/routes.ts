import { MAX_WEBHOOK_ENDPOINTS, NotificationId, WebhookEndpointId, type Plan } from '@cds/contracts';
import type { EndpointInput, WebhookAdmin, WebhookEndpoint } from '@cds/webhooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AdminClient } from '../admin/admin-client.ts';
import { PageError } from '../http/page-error.ts';
import { paramsOf } from '../http/params.ts';
import type { SignedInUser, Web } from '../http/web.ts';
import { PREFIX } from '../pages/layout.ts';
import type { ThrottleRules } from '../security/throttle.ts';
import type { CommodityCatalog } from './commodity-catalog.ts';
import {
  parseCommodities,
  parseTypes,
  readEndpointForm,
  topicsNotInPlan,
  urlShapeProblem,
  type EndpointFormValues,
  type FieldErrors,
} from './endpoint-form.ts';
import {
  deleteEndpointPage,
  endpointFormPage,
  endpointPage,
  rotateSecretPage,
  webhooksPage,
  type EndpointPageState,
  type WebhooksPageState,
} from './page.ts';

const BASE = `${PREFIX}/webhooks`;
const EndpointParams = z.object({ id: WebhookEndpointId });
/** A delivery is named by its notification's id; the store's delivery id is `<endpoint id>:<event id>`. */
const DeliveryParams = z.object({ eventId: NotificationId });
const DELIVERIES_SHOWN = 50;

/** The notes a redirect may carry (`?notice=`), by code: anything else shows none. */
const NOTICES = new Map([
  ['saved', 'Changes saved.'],
  ['enabled', 'Endpoint enabled: notifications are delivered again.'],
  ['disabled', 'Endpoint disabled: no notifications are delivered to it until you enable it.'],
  ['test', 'Test event queued: it shows below and is delivered within seconds. Refresh to follow it.'],
  ['resent', 'Delivery queued again: it is retried from now for 24 hours.'],
  ['deleted', 'Endpoint deleted.'],
]);

/**
 * What the rotate action answers: the replaced secret keeps signing deliveries, beside the new one,
 * until `previous_secret_expires_at` (24 h; docs/notifications.md, "Rotating the secret").
 */
export function rotatedNotice(endpoint: WebhookEndpoint): string {
  const until = endpoint.previous_secret_expires_at;
  if (until === null) return 'Secret rotated.';
  const at = `${until.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const old =
    endpoint.previous_secret_hint === null ? 'The old secret' : `The old secret (…${endpoint.previous_secret_hint})`;
  return (
    `Secret rotated. ${old} stays valid until ${at}: until then every delivery is signed with both ` +
    '(two v1= entries in CDS-Signature), so update your receiver before then; after it, only the new one signs.'
  );
}

/** Checks a webhook URL's address when saved: the problem to show, or null. */
export type WebhookUrlCheck = (url: string) => Promise<string | null>;

export interface WebhookRouteDeps {
  web: Web;
  webhooks: WebhookAdmin;
  admin: AdminClient;
  catalog: CommodityCatalog;
  checkUrl: WebhookUrlCheck;
  rules: ThrottleRules;
}

/**
 * Every rule of the form, the address and catalog checks concurrently. `shapeOnly` says the
 * commodities could not be checked against the catalog (the page says so).
 */
async function validateEndpoint(
  deps: Pick<WebhookRouteDeps, 'checkUrl' | 'catalog'>,
  values: EndpointFormValues,
  plan: Plan,
): Promise<{ errors: FieldErrors } | { input: EndpointInput; shapeOnly: boolean }> {
  const errors: FieldErrors = {};
  const commodities = parseCommodities(values.commodities);
  const types = parseTypes(values, plan);
  const urlShape = urlShapeProblem(values.url);
  const [urlProblem, unknown] = await Promise.all([
    urlShape ?? deps.checkUrl(values.url),
    'ids' in commodities && commodities.ids !== null ? deps.catalog.unknown(commodities.ids) : [],
  ]);
  if (urlProblem !== null) errors.url = urlProblem;
  if ('problem' in commodities) errors.commodities = commodities.problem;
  else if (unknown !== 'unavailable' && unknown.length > 0) {
    errors.commodities =
      unknown.length === 1
        ? `Unknown commodity: ${unknown[0]}. Check the spelling against the catalog (GET /api/v1/commodities).`
        : `Unknown commodities: ${unknown.join(', ')}. Check the spelling against the catalog (GET /api/v1/commodities).`;
  }
  if ('problem' in types) errors.types = types.problem;
  if (Object.keys(errors).length > 0 || 'problem' in commodities || 'problem' in types) return { errors };
  return {
    // Stored as the URL parser writes it: exactly what the notifier will call.
    input: {
      url: new URL(values.url).href,
      commodities: commodities.ids,
      types: types.types,
      enabled: values.enabled,
    },
    shapeOnly: unknown === 'unavailable',
  };
}

const shapeOnlyNote =
  'The commodity ids were checked for their form only: the catalog could not be read just now, so check their spelling.';
const limitMessage = `You have ${MAX_WEBHOOK_ENDPOINTS} endpoints, the most an account may have. Delete one to add another.`;

/** What the webhook routes share: the caller's plan and endpoint, and the three pages they render. */
function webhookPages(deps: WebhookRouteDeps) {
  const { web, webhooks } = deps;
  const planOf = async (user: SignedInUser): Promise<Plan> => (await deps.admin.getAccount(user.account_id)).plan;
  const noSuchEndpoint = () => new PageError(404, 'No such endpoint', 'This account has no such webhook endpoint.');
  const endpointIdOf = (request: FastifyRequest) => paramsOf(request, EndpointParams, noSuchEndpoint).id;

  /** The user's endpoint the address names; another account's id is answered like an unknown one. */
  const own = async (user: SignedInUser, request: FastifyRequest): Promise<WebhookEndpoint> => {
    const endpoint = await webhooks.getEndpoint(user.account_id, endpointIdOf(request));
    if (endpoint === null) throw noSuchEndpoint();
    return endpoint;
  };

  const renderList = async (request: FastifyRequest, reply: FastifyReply, extra: Partial<WebhooksPageState> = {}) => {
    const user = web.requireUser(request);
    const endpoints = await webhooks.listEndpoints(user.account_id);
    return web.page(reply, request, 'Webhooks', webhooksPage({ csrf: web.csrfOf(request), endpoints, ...extra }), {
      active: 'webhooks',
    });
  };

  const renderEndpoint = async (
    request: FastifyRequest,
    reply: FastifyReply,
    endpoint: WebhookEndpoint,
    extra: Partial<EndpointPageState> & { status?: number } = {},
  ) => {
    const user = web.requireUser(request);
    const deliveries = await webhooks.listDeliveries(user.account_id, endpoint.id, DELIVERIES_SHOWN);
    const { status = 200, ...state } = extra;
    return web.page(
      reply,
      request,
      'Webhook endpoint',
      endpointPage({ csrf: web.csrfOf(request), endpoint, deliveries, ...state }),
      { status, active: 'webhooks' },
    );
  };

  const renderForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    s: { plan: Plan; values: EndpointFormValues; endpoint?: WebhookEndpoint; errors?: FieldErrors; error?: string },
    status = 200,
  ) =>
    web.page(
      reply,
      request,
      s.endpoint === undefined ? 'Add a webhook endpoint' : 'Edit the endpoint',
      endpointFormPage({
        csrf: web.csrfOf(request),
        mode: s.endpoint === undefined ? 'create' : 'edit',
        lacking: topicsNotInPlan(s.plan),
        ...s,
      }),
      { status, active: 'webhooks' },
    );

  /** The notifier does not deliver to a disabled endpoint (it ends such deliveries unsent). */
  const refuseDisabled = (request: FastifyRequest, reply: FastifyReply, endpoint: WebhookEndpoint) =>
    renderEndpoint(request, reply, endpoint, {
      error: 'This endpoint is disabled: enable it first, then send a test event or re-send.',
      status: 409,
    });

  return { planOf, noSuchEndpoint, endpointIdOf, own, renderList, renderEndpoint, renderForm, refuseDisabled };
}

type WebhookPages = ReturnType<typeof webhookPages>;

/** Add an endpoint, show one, edit it: the forms and their saves. */
function registerEndpointForms(app: FastifyInstance, deps: WebhookRouteDeps, pages: WebhookPages): void {
  const { web, webhooks, rules } = deps;
  const { planOf, noSuchEndpoint, own, renderEndpoint, renderForm } = pages;
  app.get(`${BASE}/new`, async (request, reply) => {
    const user = web.requireUser(request);
    const plan = await planOf(user);
    const values: EndpointFormValues = { url: '', commodities: 'all', typesMode: 'all', types: [], enabled: true };
    const count = (await webhooks.listEndpoints(user.account_id)).length;
    return renderForm(request, reply, {
      plan,
      values,
      ...(count >= MAX_WEBHOOK_ENDPOINTS ? { error: limitMessage } : {}),
    });
  });

  app.post(BASE, async (request, reply) => {
    const user = web.requireUser(request);
    const values = readEndpointForm(request.body);
    await web.throttled('webhook-save', user.account_id, rules.webhookSavePerAccount);
    const plan = await planOf(user);
    const checked = await validateEndpoint(deps, values, plan);
    if ('errors' in checked) return renderForm(request, reply, { plan, values, errors: checked.errors }, 400);
    const created = await webhooks.createEndpoint(user.account_id, user.email, checked.input);
    if (created === 'limit_reached') return renderForm(request, reply, { plan, values, error: limitMessage }, 409);
    return renderEndpoint(request, reply, created.endpoint, {
      secret: { value: created.secret, rotated: false },
      info: 'Endpoint added.',
      ...(checked.shapeOnly ? { error: shapeOnlyNote } : {}),
    });
  });

  app.get(`${BASE}/:id`, async (request, reply) => {
    const endpoint = await own(web.requireUser(request), request);
    return renderEndpoint(request, reply, endpoint, { info: NOTICES.get(web.query(request, 'notice')) });
  });

  app.get(`${BASE}/:id/edit`, async (request, reply) => {
    const user = web.requireUser(request);
    const endpoint = await own(user, request);
    const values: EndpointFormValues = {
      url: endpoint.url,
      commodities: endpoint.commodities === null ? 'all' : endpoint.commodities.join(', '),
      typesMode: endpoint.types === null ? 'all' : 'some',
      types: endpoint.types ?? [],
      enabled: endpoint.enabled,
    };
    return renderForm(request, reply, { plan: await planOf(user), values, endpoint });
  });

  app.post(`${BASE}/:id`, async (request, reply) => {
    const user = web.requireUser(request);
    const endpoint = await own(user, request);
    const values = readEndpointForm(request.body);
    await web.throttled('webhook-save', user.account_id, rules.webhookSavePerAccount);
    const plan = await planOf(user);
    const checked = await validateEndpoint(deps, values, plan);
    if ('errors' in checked) return renderForm(request, reply, { plan, values, endpoint, errors: checked.errors }, 400);
    const updated = await webhooks.updateEndpoint(user.account_id, endpoint.id, checked.input);
    if (updated === null) throw noSuchEndpoint();
    if (checked.shapeOnly)
      return renderEndpoint(request, reply, updated, { info: 'Changes saved.', error: shapeOnlyNote });
    return web.redirect(reply, `/webhooks/${updated.id}`, { notice: 'saved' });
  });
}

/** Enable, disable, rotate the secret, delete (the last two behind a confirmation page). */
function registerEndpointActions(app: FastifyInstance, deps: WebhookRouteDeps, pages: WebhookPages): void {
  const { web, webhooks } = deps;
  const { noSuchEndpoint, endpointIdOf, own, renderEndpoint } = pages;
  for (const enabled of [true, false]) {
    app.post(`${BASE}/:id/${enabled ? 'enable' : 'disable'}`, async (request, reply) => {
      const user = web.requireUser(request);
      const e = await own(user, request);
      const updated = await webhooks.updateEndpoint(user.account_id, e.id, {
        url: e.url,
        commodities: e.commodities,
        types: e.types,
        enabled,
      });
      if (updated === null) throw noSuchEndpoint();
      return web.redirect(reply, `/webhooks/${e.id}`, { notice: enabled ? 'enabled' : 'disabled' });
    });
  }

  app.get(`${BASE}/:id/rotate`, async (request, reply) => {
    const endpoint = await own(web.requireUser(request), request);
    return web.page(reply, request, 'Rotate the secret', rotateSecretPage({ csrf: web.csrfOf(request), endpoint }), {
      active: 'webhooks',
    });
  });
  app.post(`${BASE}/:id/rotate`, async (request, reply) => {
    const user = web.requireUser(request);
    const endpoint = await own(user, request);
    const secret = await webhooks.rotateSecret(user.account_id, endpoint.id);
    if (secret === null) throw noSuchEndpoint();
    const current = (await webhooks.getEndpoint(user.account_id, endpoint.id)) ?? endpoint;
    return renderEndpoint(request, reply, current, {
      secret: { value: secret, rotated: true },
      info: rotatedNotice(current),
    });
  });

  app.get(`${BASE}/:id/delete`, async (request, reply) => {
    const endpoint = await own(web.requireUser(request), request);
    return web.page(reply, request, 'Delete endpoint', deleteEndpointPage({ csrf: web.csrfOf(request), endpoint }), {
      active: 'webhooks',
    });
  });
  app.post(`${BASE}/:id/delete`, async (request, reply) => {
    const user = web.requireUser(request);
    if (!(await webhooks.deleteEndpoint(user.account_id, endpointIdOf(request)))) throw noSuchEndpoint();
    return web.redirect(reply, '/webhooks', { notice: 'deleted' });
  });
}

/** A test event and a re-sent delivery, for an enabled endpoint only. */
function registerDeliveryActions(app: FastifyInstance, deps: WebhookRouteDeps, pages: WebhookPages): void {
  const { web, webhooks, rules } = deps;
  const { noSuchEndpoint, own, refuseDisabled } = pages;
  app.post(`${BASE}/:id/test`, async (request, reply) => {
    const user = web.requireUser(request);
    const endpoint = await own(user, request);
    if (!endpoint.enabled) return refuseDisabled(request, reply, endpoint);
    await web.throttled('webhook-send', user.account_id, rules.webhookSendPerAccount);
    if ((await webhooks.sendTestEvent(user.account_id, endpoint.id)) === null) throw noSuchEndpoint();
    return web.redirect(reply, `/webhooks/${endpoint.id}`, { notice: 'test' });
  });

  app.post(`${BASE}/:id/deliveries/:eventId/resend`, async (request, reply) => {
    const user = web.requireUser(request);
    const endpoint = await own(user, request);
    const none = () => new PageError(404, 'No such delivery', 'This endpoint has no such delivery.');
    const { eventId } = paramsOf(request, DeliveryParams, none);
    if (!endpoint.enabled) return refuseDisabled(request, reply, endpoint);
    await web.throttled('webhook-send', user.account_id, rules.webhookSendPerAccount);
    if ((await webhooks.resendDelivery(user.account_id, `${endpoint.id}:${eventId}`)) === null) throw none();
    return web.redirect(reply, `/webhooks/${endpoint.id}`, { notice: 'resent' });
  });
}

/**
 * The webhook pages: the list, create (secret shown once), the endpoint with its deliveries
 * (re-send, test event), edit, enable/disable, rotate secret and delete behind confirmations.
 */
export function registerWebhookRoutes(app: FastifyInstance, deps: WebhookRouteDeps): void {
  const pages = webhookPages(deps);
  const { web } = deps;
  const { renderList } = pages;
  app.get(BASE, (request, reply) => {
    const notice = NOTICES.get(web.query(request, 'notice'));
    return renderList(request, reply, { info: notice });
  });
  registerEndpointForms(app, deps, pages);
  registerEndpointActions(app, deps, pages);
  registerDeliveryActions(app, deps, pages);
}
