/**
 * `EnrolmentEndpointStore` (lib/ports/enrolment-endpoints.ts) as `store.enrolmentEndpoints`: the
 * enrolment endpoints of `ca_api_enrolment_endpoints` (migrations 0026, 0027), on the store's connection or
 * transaction. Writes name this store's actor in their events (the triggers of migration 0026).
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
import { writeNaming } from './events';
import { TABLES } from './tables';
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

export class KnexEnrolmentEndpointStore implements EnrolmentEndpointStore {
  constructor(
    private readonly db: Knex,
    private readonly bound: boolean,
    private readonly actor: Actor | null,
  ) {}

  createEnrolmentEndpoint(e: NewStoredEnrolmentEndpoint): Promise<StoredEnrolmentEndpoint> {
    return this.write(async (db) => {
      const [row] = (await db(TABLES.enrolmentEndpoints)
        .insert({ protocol: e.protocol, label: e.label, ...columns(e) })
        .returning('*')) as Row[];
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
    return this.write(async (db) => {
      const [row] = (await db(TABLES.enrolmentEndpoints)
        .where({ protocol, label })
        .update({ ...columns(patch), updated: db.raw('clock_timestamp()') })
        .returning('*')) as Row[];
      return row ? record(row) : null;
    });
  }

  deleteEnrolmentEndpoint(protocol: EnrolmentProtocol, label: string): Promise<boolean> {
    // `returning`: the affected-row count of a DELETE is not reported alike by both drivers.
    return this.write(
      async (db) => ((await db(TABLES.enrolmentEndpoints).where({ protocol, label }).delete().returning('id')) as unknown[]).length > 0,
    );
  }

  /** A write, its events naming this store's actor (events.ts `writeNaming`). */
  private write<T>(work: (db: Knex) => Promise<T>): Promise<T> {
    return writeNaming(this.db, this.bound, this.actor, work);
  }
}
