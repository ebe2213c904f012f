import type { DataEvent } from '@cds/contracts';
import type { PulledMessage } from '@cds/messaging';
import type { Logger } from 'pino';

/** A delivered message as the consume loop hands it over (poison: `value` undefined). */
export function pulled(
  seq: number,
  value: DataEvent | undefined,
  more: Partial<PulledMessage> = {},
): PulledMessage<DataEvent> {
  return {
    subject: 'cds.data.x',
    seq,
    deliveryCount: 1,
    redelivered: false,
    pending: 0,
    storedAtMs: seq * 1000,
    data: new Uint8Array(),
    headers: undefined,
    traceContext: undefined as unknown as PulledMessage['traceContext'],
    value,
    ...more,
  } as PulledMessage<DataEvent>;
}

/** A logger that keeps each line as [level, message, fields]. */
export function recordingLogger(): { log: Logger; lines: [string, string, Record<string, unknown>][] } {
  const lines: [string, string, Record<string, unknown>][] = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push([level, msg, fields]);
  const log = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: () => log,
  };
  return { log: log as unknown as Logger, lines };
}
