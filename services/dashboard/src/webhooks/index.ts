export { createCommodityCatalog, noCatalog, type CommodityCatalog } from './commodity-catalog.ts';
export { registerWebhookRoutes, type WebhookUrlCheck } from './routes.ts';
export { createWebhookUrlCheck } from './url-check.ts';
