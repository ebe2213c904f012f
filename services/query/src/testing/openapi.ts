import { openApiPath, routeOfPath } from '@cds/contracts';
import { createOpenApiResponseValidator, type ResponseLike } from '@cds/contracts/testing';

/** Headers only the gateway adds (rate windows); the query service is internal and never sends them. */
const GATEWAY_HEADERS = {
  'x-ratelimit-limit': '100',
  'x-ratelimit-remaining': '99',
  'x-ratelimit-reset': '1700000000',
  'ratelimit-policy': '"minute";q=100;w=60',
  ratelimit: '"minute";r=99;t=60',
};

/** The OpenAPI path template of a query-service URL, by the contract's route table. */
export function pathTemplateOf(url: string): string {
  const route = routeOfPath(url.split('?')[0] ?? '');
  if (route === undefined) throw new Error(`not an API path: ${url}`);
  return openApiPath(route);
}

/**
 * Checks a query-service response against the public OpenAPI document, as the gateway will
 * forward it: body and status per the document, X-Request-Id present and equal to the body's
 * request id. The rate-limit headers (the gateway's) are supplied for the check.
 */
export function createQueryResponseValidator() {
  const validate = createOpenApiResponseValidator();
  return (url: string, res: ResponseLike): void => {
    validate(pathTemplateOf(url), { ...res, headers: { ...GATEWAY_HEADERS, ...res.headers } });
    const id = res.headers['x-request-id'];
    const body = JSON.parse(res.body) as { meta?: { request_id?: string }; error?: { request_id?: string } };
    const inBody = body.meta?.request_id ?? body.error?.request_id;
    if (id === undefined || inBody !== id) {
      throw new Error(`X-Request-Id ${String(id)} does not match the body's request id ${String(inBody)}`);
    }
  };
}
