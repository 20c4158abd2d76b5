/**
 * `EnrolmentEndpointStore` (lib/ports/enrolment-endpoints.ts) as `store.enrolmentEndpoints`: the
 * enrolment endpoints of `ca_api_enrolment_endpoints` (migrations 0026, 0027), on the store's connection or
 * transaction. Writes record their events (`enrolment.endpoint.created`, `.updated` naming the fields
 * that changed — none changed, no event —, `.deleted`), naming this store's actor (transaction-events.ts).
 */
import type { Knex } from 'knex';
import type {
  Actor,
  EnrolmentEndpointStore,
  EnrolmentProtocol,
  NewStoredEnrolmentEndpoint,
  StoredEnrolmentEndpoint,
  StoredEnrolmentEndpointPatch,
} from '../../../lib/ports';
import { mappingErrors } from './errors';
import { updateComparing } from './row-changes';
import { TABLES } from './tables';
import { writeWithEvents, type EventBatch, type RecordEvents } from './transaction-events';
import { fromNullableJson, toDate, toNullableJson, toNullableNumber, toNumber } from './values';

interface Row {
  id: unknown;
  protocol: EnrolmentProtocol;
  label: string;
  ca_id: unknown;
  profile: string | null;
  challenge_sha256: string | null;
  approval: boolean;
  names: unknown;
  validity_days: unknown;
  requests_per_minute: unknown;
  challenge_webhook: boolean;
  enabled: boolean;
  created: unknown;
  updated: unknown;
}

function record(row: Row): StoredEnrolmentEndpoint {
  return {
    id: toNumber(row.id),
    protocol: row.protocol,
    label: row.label,
    caId: toNumber(row.ca_id),
    profile: row.profile,
    challengeSha256: row.challenge_sha256,
    approval: row.approval,
    names: fromNullableJson(row.names),
    validityDays: toNullableNumber(row.validity_days),
    requestsPerMinute: toNullableNumber(row.requests_per_minute),
    challengeWebhook: row.challenge_webhook,
    enabled: row.enabled,
    created: toDate(row.created),
    updated: toDate(row.updated),
  };
}

/** The columns of what a create or an edit gives (fields left out stay as they are). */
function columns(e: StoredEnrolmentEndpointPatch): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (e.caId !== undefined) out.ca_id = e.caId;
  if (e.profile !== undefined) out.profile = e.profile;
  if (e.challengeSha256 !== undefined) out.challenge_sha256 = e.challengeSha256;
  if (e.approval !== undefined) out.approval = e.approval;
  if (e.names !== undefined) out.names = toNullableJson(e.names);
  if (e.validityDays !== undefined) out.validity_days = e.validityDays;
  if (e.requestsPerMinute !== undefined) out.requests_per_minute = e.requestsPerMinute;
  if (e.challengeWebhook !== undefined) out.challenge_webhook = e.challengeWebhook;
  if (e.enabled !== undefined) out.enabled = e.enabled;
  return out;
}

/** The fields `enrolment.endpoint.updated` names when they changed, in its order, as the database compares them. */
const CHANGED_FIELDS = `array_remove(ARRAY[
  CASE WHEN n.ca_id IS DISTINCT FROM o.ca_id THEN 'ca' END,
  CASE WHEN n.profile IS DISTINCT FROM o.profile THEN 'profile' END,
  CASE WHEN n.challenge_sha256 IS DISTINCT FROM o.challenge_sha256 THEN 'challenge' END,
  CASE WHEN n.approval IS DISTINCT FROM o.approval THEN 'approval' END,
  CASE WHEN n.names::text IS DISTINCT FROM o.names::text THEN 'names' END,
  CASE WHEN n.validity_days IS DISTINCT FROM o.validity_days THEN 'validity_days' END,
  CASE WHEN n.enabled IS DISTINCT FROM o.enabled THEN 'enabled' END,
  CASE WHEN n.requests_per_minute IS DISTINCT FROM o.requests_per_minute THEN 'requests_per_minute' END,
  CASE WHEN n.challenge_webhook IS DISTINCT FROM o.challenge_webhook THEN 'challenge_webhook' END
]::text[], NULL)`;

/** What `enrolment.endpoint.created` says of a new endpoint: its settings, whether it has a challenge (never the challenge). */
function created(row: Row): Record<string, unknown> {
  return {
    protocol: row.protocol,
    label: row.label,
    profile: row.profile,
    challenge: row.challenge_sha256 !== null,
    approval: row.approval,
    names: fromNullableJson(row.names),
    validity_days: toNullableNumber(row.validity_days),
    enabled: row.enabled,
    requests_per_minute: toNullableNumber(row.requests_per_minute),
    challenge_webhook: row.challenge_webhook,
  };
}

export class KnexEnrolmentEndpointStore implements EnrolmentEndpointStore {
  constructor(
    private readonly db: Knex,
    private readonly queue: EventBatch | null,
    private readonly actor: Actor | null,
  ) {}

  createEnrolmentEndpoint(e: NewStoredEnrolmentEndpoint): Promise<StoredEnrolmentEndpoint> {
    return this.write(async (db, recordEvents) => {
      const [row] = (await db(TABLES.enrolmentEndpoints)
        .insert({ protocol: e.protocol, label: e.label, ...columns(e) })
        .returning('*')) as Row[];
      recordEvents({ type: 'enrolment.endpoint.created', caId: toNumber(row.ca_id), data: created(row) });
      return record(row);
    });
  }

  findEnrolmentEndpoint(protocol: EnrolmentProtocol, label: string): Promise<StoredEnrolmentEndpoint | null> {
    return mappingErrors(async () => {
      const row = (await this.db(TABLES.enrolmentEndpoints).where({ protocol, label }).first()) as Row | undefined;
      return row ? record(row) : null;
    });
  }

  listEnrolmentEndpoints(): Promise<StoredEnrolmentEndpoint[]> {
    return mappingErrors(async () => {
      const rows = (await this.db(TABLES.enrolmentEndpoints).orderBy([{ column: 'protocol' }, { column: 'label' }])) as Row[];
      return rows.map(record);
    });
  }

  updateEnrolmentEndpoint(
    protocol: EnrolmentProtocol,
    label: string,
    patch: StoredEnrolmentEndpointPatch,
  ): Promise<StoredEnrolmentEndpoint | null> {
    return this.write(async (db, recordEvents) => {
      const updated = await updateComparing(
        db,
        TABLES.enrolmentEndpoints,
        { protocol, label },
        { ...columns(patch), updated: db.raw('clock_timestamp()') },
        { changed: CHANGED_FIELDS },
      );
      if (!updated) return null;
      const row = updated.row as unknown as Row;
      const changed = updated.change.changed as string[];
      if (changed.length) {
        recordEvents({
          type: 'enrolment.endpoint.updated',
          caId: toNumber(row.ca_id),
          data: { protocol: row.protocol, label: row.label, changed },
        });
      }
      return record(row);
    });
  }

  deleteEnrolmentEndpoint(protocol: EnrolmentProtocol, label: string): Promise<boolean> {
    // `returning`: the affected-row count of a DELETE is not reported alike by both drivers.
    return this.write(async (db, recordEvents) => {
      const deleted = (await db(TABLES.enrolmentEndpoints).where({ protocol, label }).delete().returning('*')) as Row[];
      for (const row of deleted) {
        recordEvents({ type: 'enrolment.endpoint.deleted', caId: toNumber(row.ca_id), data: { protocol: row.protocol, label: row.label } });
      }
      return deleted.length > 0;
    });
  }

  /** A write and its events, naming this store's actor (transaction-events.ts). */
  private write<T>(work: (db: Knex, recordEvents: RecordEvents) => Promise<T>): Promise<T> {
    return writeWithEvents(this.db, this.queue, this.actor, work);
  }
}
