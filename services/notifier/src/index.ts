// The notifier as a package (its pieces for tests); the service starts from main.ts.
export { buildApp, type AppDeps } from './app.ts';
export { NotifierConfig } from './config.ts';
export { deliveryHeaders, startDeliveryLoop, USER_AGENT, type DeliveryLoop } from './delivery/delivery-loop.ts';
export { endpointDisabledMail } from './delivery/mails.ts';
export { NOTIFIER_DURABLE, startChangeIntake } from './intake/change-intake.ts';
export { createNotifierMetrics, type NotifierMetrics } from './metrics.ts';
