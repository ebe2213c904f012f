import { lookup } from 'node:dns/promises';
import { checkWebhookUrl, type Resolver } from '@cds/webhooks';
import type { WebhookUrlCheck } from './routes.ts';

const PUBLIC_ONLY = 'Webhooks are delivered only to public internet addresses.';

/** The check's message as a sentence for the form: what is wrong and what is allowed. */
function sentence(message: string): string {
  // Messages about a host start with the host name, kept as written.
  if (/ does not resolve | has no address$/.test(message)) return `${message}: check the host name.`;
  if (/ address$| name$/.test(message)) return `${message}. ${PUBLIC_ONLY}`;
  return `The URL ${message}.`;
}

/**
 * The address check of a webhook URL when it is saved: `checkWebhookUrl` of libs/webhooks (the
 * notifier checks again before every delivery), the name resolved under a deadline.
 */
export function createWebhookUrlCheck(opts: {
  /** `host:port` pairs exempt from the private-address refusal (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: readonly string[];
  /** Deadline of the name resolution. */
  timeoutMs: number;
  resolver?: Resolver;
}): WebhookUrlCheck {
  const resolve = opts.resolver ?? ((host: string) => lookup(host, { all: true, verbatim: true }));
  const resolver: Resolver = (host) =>
    new Promise((ok, fail) => {
      const timer = setTimeout(
        () => fail(Object.assign(new Error(`resolving ${host} timed out`), { code: 'timed out' })),
        opts.timeoutMs,
      );
      resolve(host).then(
        (addresses) => {
          clearTimeout(timer);
          ok(addresses);
        },
        (err: unknown) => {
          clearTimeout(timer);
          fail(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  return async (url) => {
    const verdict = await checkWebhookUrl(url, { allowPrivate: opts.allowPrivate, resolver });
    return verdict.ok ? null : sentence(verdict.message);
  };
}
