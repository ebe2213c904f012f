import { infraVars, portVar, positiveIntVar, processVars } from '@cds/config';
import { z } from 'zod';
import { PROJECTION_NAMES } from './projections/index.ts';

const projectionList = z
  .string()
  .default(PROJECTION_NAMES.join(','))
  .transform((v) => [
    ...new Set(
      v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ])
  .pipe(z.array(z.enum(PROJECTION_NAMES)).min(1, 'name at least one projection'));

export const ProjectorConfig = z
  .object({
    NATS_URL: infraVars.NATS_URL,
    MONGODB_URL: infraVars.MONGODB_URL,
    MONGODB_DB: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,63}$/)
      .default('cds'),
    LOG_LEVEL: infraVars.LOG_LEVEL,
    /** Which projections this process runs (each is its own durable consumer). */
    PROJECTIONS: projectionList,
    /** /healthz, /readyz and /metrics. */
    PORT: portVar.default(8082),
    ...processVars,
    ACK_WAIT_MS: positiveIntVar.default(30_000),
    /** Replicas of the dead-letter stream (1 locally, 3 in production). */
    DEADLETTER_REPLICAS: positiveIntVar.default(1),
    /**
     * Replicas of `CDS_CHANGES`, the change records the series and cot projections publish (the
     * chart's `nats.jetstreamReplicas`, as the gateway reads it for `CDS_KEYS`).
     */
    JETSTREAM_REPLICAS: positiveIntVar.default(1),
    /**
     * Deadline of every database operation (client-side, and `maxTimeMS` where the server honours
     * it); a batch whose operation misses it is retried in place.
     */
    MONGODB_OPERATION_TIMEOUT_MS: positiveIntVar.default(20_000),
    /**
     * The watchdog: no progress this long while messages are pending is a stall (logged, counted,
     * recovered); still none this long after recovery and /healthz fails.
     */
    STALL_TIMEOUT_MS: positiveIntVar.default(60_000),
  })
  .refine((c) => c.STALL_TIMEOUT_MS > c.MONGODB_OPERATION_TIMEOUT_MS, {
    path: ['STALL_TIMEOUT_MS'],
    message: 'must be greater than MONGODB_OPERATION_TIMEOUT_MS (a slow operation is not a stall)',
  });
export type ProjectorConfig = z.output<typeof ProjectorConfig>;
