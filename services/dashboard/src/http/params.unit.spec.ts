import { KeyId, NotificationId, WebhookEndpointId } from '@cds/contracts';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PageError } from './page-error.ts';
import { paramsOf } from './params.ts';

const requestWith = (params: Record<string, string>) => ({ params }) as unknown as FastifyRequest;
const unknown = () => new PageError(404, 'No such endpoint', 'This account has no such webhook endpoint.');
const Delivery = z.object({ id: WebhookEndpointId, eventId: NotificationId });

describe('route parameters through contract schemas', () => {
  it('gives the typed parameters when they match', () => {
    const params = { id: 'whk_0123456789abcdef01234567', eventId: `evt_${'ab'.repeat(16)}` };
    expect(paramsOf(requestWith(params), Delivery, unknown)).toEqual(params);
    expect(paramsOf(requestWith({ keyId: 'key_abcdefgh01' }), z.object({ keyId: KeyId }), unknown)).toEqual({
      keyId: 'key_abcdefgh01',
    });
  });

  it.each([
    [{ id: 'whk_nothere', eventId: `evt_${'ab'.repeat(16)}` }],
    [{ id: 'whk_0123456789abcdef01234567', eventId: 'evt_1' }],
    [{ id: 'whk_0123456789ABCDEF01234567', eventId: `evt_${'ab'.repeat(16)}` }],
    [{ id: 'whk_0123456789abcdef01234567' }],
  ])('throws the caller’s page for %j', (params) => {
    const thrown = (() => {
      try {
        paramsOf(requestWith(params), Delivery, unknown);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(PageError);
    expect(thrown).toMatchObject({ status: 404, title: 'No such endpoint' });
  });
});
