/**
 * The body of a webhook request: the Standard Webhooks specification's recommended shape
 * (https://www.standardwebhooks.com/, "Payload structure"): `type`, `timestamp` (when the event
 * happened, ISO 8601) and `data`, here the event's id, its actor and serials, and what the event
 * carries (lib/ports/events.ts) under the same names as in the outbox.
 */
import type { DomainEvent } from '../ports';

export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: {
    event_id: number;
    ca_serial: string | null;
    serial: string | null;
    actor: DomainEvent['actor'];
  } & Record<string, unknown>;
}

export function webhookPayload(event: DomainEvent): string {
  const payload: WebhookPayload = {
    type: event.type,
    timestamp: event.created.toISOString(),
    data: { ...event.data, event_id: event.id, ca_serial: event.caSerial, serial: event.serial, actor: event.actor },
  };
  return JSON.stringify(payload);
}
