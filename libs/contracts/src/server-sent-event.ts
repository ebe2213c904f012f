import { z } from 'zod';
import { ErrorBody } from './errors.ts';
import { Notification, NOTIFICATION_TYPES } from './notifications.ts';

const eventId = z
  .string()
  .regex(/^(0|[1-9][0-9]{0,14})$/)
  .meta({ description: 'The `id:` line: send it back as Last-Event-ID to resume after this event.' });

/**
 * One event of GET /events (`text/event-stream`), as its fields: `id:`, `event:` and `data:` (the
 * JSON named here, on one line). The stream also carries `retry: 3000` first and `: keep-alive`
 * comments, which are not events (services/gateway/src/events/frames.ts writes them all). Not a
 * component (the clients' generators take no stream items): the document inlines it where the
 * event-stream response names its items.
 */
export const ServerSentEvent = z
  .discriminatedUnion('event', [
    z.object({ id: eventId, event: z.enum(NOTIFICATION_TYPES), data: Notification }),
    z.object({
      id: eventId,
      event: z.literal('resync'),
      data: z.object({
        message: z.string().min(1),
        last_event_id: z.int().min(0).meta({ description: 'The Last-Event-ID the stream was asked to resume after.' }),
      }),
    }),
    z.object({ event: z.literal('error'), data: ErrorBody }),
  ])
  .meta({
    description:
      'An event of GET /events: its `id:` (absent on the final error), its `event:` type and its `data:` (JSON on ' +
      'one line): a change (Notification), a resync, or the error that ends the stream.',
  });
export type ServerSentEvent = z.infer<typeof ServerSentEvent>;
