import { type ApiError, createRequestIdGenerator, InvalidParameterError, registerErrorHandling } from '@cds/http';
import type { Metrics } from '@cds/telemetry';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { KeyCommands } from '../commands/index.ts';
import { type AdminAuthThrottle, registerAdminRoutes } from './routes.ts';

export interface AppDeps {
  commands: KeyCommands;
  adminToken: string;
  /** Base address used in error doc_url links. */
  publicBaseUrl: string;
  /** True when NATS is connected and the key model has caught up with the stream. */
  isReady: () => boolean;
  logger?: FastifyBaseLogger | boolean;
  /** Largest accepted request body. Default 16 KiB. */
  bodyLimit?: number;
  /** Failed authentications per client address (default: 10 a minute, then 429 until the minute ends). */
  authThrottle?: AdminAuthThrottle;
  /** Wall clock of the throttle. */
  nowMs?: () => number;
  /** Served at GET /metrics when given (metrics.ts declares them). */
  metrics?: Metrics;
}

/** Fastify's body-parsing failures, as invalid_parameter naming the body. */
function classify(error: unknown): ApiError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('FST_ERR_CTP_')) return undefined;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return undefined;
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new InvalidParameterError('body', 'Send the request body as application/json.');
  }
  return new InvalidParameterError('body', 'The request body is not valid JSON.');
}

/**
 * The admin API of the accounts service: account and key commands under /admin/v1 (behind the admin
 * bearer token, wrong tokens throttled per client address; meant for the cluster network only, the
 * chart admits only the dashboard's pods and the admin CLI's), plus /healthz, /readyz and /metrics.
 */
export function buildApp(deps: AppDeps): FastifyInstance {
  const common = {
    genReqId: createRequestIdGenerator(),
    bodyLimit: deps.bodyLimit ?? 16 * 1024,
    return503OnClosing: true,
  };
  const app: FastifyInstance =
    typeof deps.logger === 'object'
      ? Fastify({ ...common, loggerInstance: deps.logger })
      : Fastify({ ...common, logger: deps.logger ?? false });
  registerErrorHandling(app, { publicBaseUrl: deps.publicBaseUrl, classify });
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', (_request, reply) =>
    deps.isReady() ? { status: 'ready' } : reply.code(503).send({ status: 'not_ready' }),
  );
  const { metrics } = deps;
  if (metrics !== undefined) {
    app.get('/metrics', async (_request, reply) =>
      reply.header('content-type', 'text/plain; version=0.0.4').send(await metrics.render()),
    );
  }
  registerAdminRoutes(app, {
    commands: deps.commands,
    adminToken: deps.adminToken,
    throttle: deps.authThrottle,
    nowMs: deps.nowMs,
  });
  return app;
}
