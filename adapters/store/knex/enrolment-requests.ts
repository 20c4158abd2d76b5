/**
 * `EnrolmentRequestStore` (lib/ports/enrolment-requests.ts) as `store.enrolmentRequests`: requests
 * waiting for an operator in `ca_api_enrolment_requests` (migration 0025), on the store's connection
 * or transaction. A decision is written only while the request is `pending`, so that two operators
 * (or two clicks) decide it once, and records its event (`enrolment.approved` or `.refused`, naming
 * whoever decided; transaction-events.ts).
 */
import type { Knex } from 'knex';
import type {
  Actor,
  EnrolmentDecision,
  EnrolmentRequestFilter,
  EnrolmentRequestRecord,
  EnrolmentRequestStatus,
  EnrolmentRequestStore,
  NewEnrolmentRequest,
} from '../../../lib/ports';
import { mappingErrors } from './errors';
import { TABLES } from './tables';
import { writeWithEvents, type EventBatch } from './transaction-events';
import { fromJson, fromNullableJson, toBuffer, toDate, toJson, toNullableDate, toNullableNumber, toNumber } from './values';

interface Row {
  id: unknown;
  protocol: string;
  label: string;
  ca_id: unknown;
  profile: string;
  validity_days: unknown;
  csr: unknown;
  requester: unknown;
  request_key: string;
  status: string;
  certificate_serial: string | null;
  reason: string | null;
  created: unknown;
  decided: unknown;
  decided_by: unknown;
}

function record(row: Row): EnrolmentRequestRecord {
  return {
    id: toNumber(row.id),
    protocol: row.protocol,
    label: row.label,
    caId: toNumber(row.ca_id),
    profile: row.profile,
    validityDays: toNullableNumber(row.validity_days),
    csrDer: toBuffer(row.csr),
    requester: fromJson<Actor>(row.requester),
    requestKey: row.request_key,
    status: row.status as EnrolmentRequestStatus,
    certificateSerial: row.certificate_serial,
    reason: row.reason,
    created: toDate(row.created),
    decided: toNullableDate(row.decided),
    decidedBy: fromNullableJson<Actor>(row.decided_by),
  };
}

export class KnexEnrolmentRequestStore implements EnrolmentRequestStore {
  constructor(
    private readonly db: Knex,
    private readonly queue: EventBatch | null,
  ) {}

  createEnrolmentRequest(r: NewEnrolmentRequest): Promise<EnrolmentRequestRecord | null> {
    return mappingErrors(async () => {
      const rows = (await this.db(TABLES.enrolmentRequests)
        .insert({
          protocol: r.protocol,
          label: r.label,
          ca_id: r.caId,
          profile: r.profile,
          validity_days: r.validityDays,
          csr: r.csrDer,
          requester: toJson(r.requester),
          request_key: r.requestKey,
        })
        .onConflict(['protocol', 'label', 'request_key'])
        .ignore()
        .returning('*')) as Row[];
      return rows.length === 1 ? record(rows[0]) : null;
    });
  }

  getEnrolmentRequest(id: number): Promise<EnrolmentRequestRecord | null> {
    return mappingErrors(async () => {
      const row = (await this.db(TABLES.enrolmentRequests).where({ id }).first()) as Row | undefined;
      return row ? record(row) : null;
    });
  }

  findEnrolmentRequest(protocol: string, label: string, requestKey: string): Promise<EnrolmentRequestRecord | null> {
    return mappingErrors(async () => {
      const row = (await this.db(TABLES.enrolmentRequests).where({ protocol, label, request_key: requestKey }).first()) as Row | undefined;
      return row ? record(row) : null;
    });
  }

  listEnrolmentRequests(filter: EnrolmentRequestFilter = {}): Promise<EnrolmentRequestRecord[]> {
    return mappingErrors(async () => {
      const query = this.db(TABLES.enrolmentRequests)
        .orderBy('id', 'desc')
        .limit(filter.limit ?? 100);
      if (filter.status) query.where({ status: filter.status });
      if (filter.caId !== undefined) query.where({ ca_id: filter.caId });
      return ((await query) as Row[]).map(record);
    });
  }

  decideEnrolmentRequest(id: number, decision: EnrolmentDecision, by: Actor, at: Date): Promise<boolean> {
    return writeWithEvents(this.db, this.queue, by, async (db, recordEvents) => {
      const [row] = (await db(TABLES.enrolmentRequests)
        .where({ id, status: 'pending' })
        .update({
          status: decision.status,
          certificate_serial: decision.status === 'approved' ? decision.certificateSerial : null,
          reason: decision.status === 'refused' ? decision.reason : null,
          decided: at,
          decided_by: toJson(by),
        })
        .returning('*')) as Row[];
      if (!row) return false;
      recordEvents({
        type: `enrolment.${decision.status}`,
        caId: toNumber(row.ca_id),
        serial: row.certificate_serial,
        data: { request: toNumber(row.id), protocol: row.protocol, label: row.label, reason: row.reason },
      });
      return true;
    });
  }
}
