import { errorBody, toNotification, type ChangeRecord, type ErrorCode } from '@cds/contracts';

/** Tells EventSource clients to reconnect after 3 s (they send Last-Event-ID when they do). */
export const RETRY_FRAME = 'retry: 3000\n\n';
export const HEARTBEAT_FRAME = ': keep-alive\n\n';
export const SHUTDOWN_FRAME = ': the server is shutting down; reconnect with Last-Event-ID\n\n';

/** One change as an event: `id:` its stream sequence, `event:` its type, `data:` the public Notification. */
export function changeFrame(seq: number, change: ChangeRecord, publicOrigin: string): string {
  return `id: ${seq}\nevent: ${change.type}\ndata: ${JSON.stringify(toNotification(change, publicOrigin))}\n\n`;
}

/**
 * The first event of a stream whose Last-Event-ID is older than what this replica keeps: the client
 * may have missed changes and should refetch what it follows. Its id is the newest sequence, so a
 * reconnection after it resumes from here.
 */
export function resyncFrame(lastSeq: number, askedAfter: number): string {
  const data = {
    message:
      `Changes after event ${askedAfter} are no longer all kept (the resume window is passed): some may have been ` +
      'missed. Refetch the data you follow; the events from here on follow.',
    last_event_id: askedAfter,
  };
  return `id: ${lastSeq}\nevent: resync\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The final event of a stream the server ends: `data:` is the API's error body. */
export function errorFrame(
  code: ErrorCode,
  message: string,
  opts: { requestId: string; publicBaseUrl: string; param?: string },
): string {
  return `event: error\ndata: ${JSON.stringify(errorBody(code, message, opts))}\n\n`;
}
