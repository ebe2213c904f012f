import type { Mail } from '@cds/mail';
import type { WebhookEndpoint } from '@cds/webhooks';

/** The one mail an owner gets when the notifier disables an endpoint that kept failing. */
export function endpointDisabledMail(endpoint: WebhookEndpoint, dashboardUrl: string): Mail {
  const link = `${dashboardUrl.replace(/\/$/, '')}/webhooks/${endpoint.id}`;
  const since = endpoint.failing_since === null ? 'for days' : `since ${endpoint.failing_since.toISOString()}`;
  return {
    to: endpoint.contact_email,
    subject: 'Your webhook endpoint was disabled',
    text:
      `Deliveries to your webhook endpoint\n\n  ${endpoint.url}\n\nhave failed ${since}, so it was disabled ` +
      `and no further notifications are sent to it.\n\nSee its recent deliveries, fix the receiver and enable ` +
      `it again here (then re-send what it missed):\n\n  ${link}\n\n— Commodity Data Service\n`,
  };
}
