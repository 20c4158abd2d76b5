/**
 * The ACME server's durable work: challenges being validated (`processing`) and orders being issued
 * (`processing` with their sign request), each with its background job (../jobs.ts, migration 0034:
 * `acme_validation`, `acme_issuance`), written in the statement that makes the work pending and
 * leased to the instance that makes the first attempt. Runners on any instance claim the jobs (the one
 * claim of ../jobs.ts): a crashed runner's lease lapses and another takes the work over, so nothing
 * stays `processing` for ever. What an attempt changes is lib/acme/state-machine.ts's decision,
 * applied by changes.ts (or, with the certificate, here) with the job's outcome.
 */
import type { Knex } from 'knex';
import {
  JOB_KINDS,
  type AcmeOrderStep,
  type AcmeValidationStart,
  type CertificateRecord,
  type ClaimedValidation,
  type NewCertificate,
  type PendingIssuance,
} from '../../../../lib/ports';
import { CERTIFICATE_COLUMN_LIST, CERTIFICATE_PLACEHOLDERS, certificateBindings, certificateColumnsOf } from '../certificate-values';
import { insertedCertificateRecord } from '../certificates';
import { certificateStored } from '../event-data';
import type { Row } from '../rows';
import { TABLES } from '../tables';
import { eventsInStatement } from '../event-writer';
import { toNumber } from '../values';
import { challengeFromRow } from './rows';
import { findOrderById } from './orders';
import { completeJobsOfSql, leaseNewJobsSql } from '../jobs';

const { acmeOrders, acmeAuthorizations, acmeChallenges, acmeAccounts, certificates } = TABLES;

/** A challenge to start validating — the one with `slug` at CA `caId`, if `accountId` owns it — its job leased to `owner` (`startValidations`). */
export interface ValidationStart {
  caId: number;
  slug: string;
  accountId: number;
  owner: string;
  leaseMs: number;
  now: Date;
  /** The statuses (lib/acme/state-machine.ts `onChallengeStart`). */
  start: AcmeValidationStart;
}

/**
 * Challenges start as their `start` says (RFC 8555 §7.5.1), of orders not past `expires`, each with its
 * `acme_validation` job leased to its `owner`, who validates it now; null where one was not in those statuses or is not the account's
 * (anything else is left as it is), and for the second of two starts of one challenge in the group.
 * One statement — the challenge found by its slug, so the request needs no read before it — which
 * also returns what validating and answering need: the identifier, the account key's thumbprint, the
 * authorization's slug.
 */
export async function startValidations(db: Knex, starts: readonly ValidationStart[]): Promise<(ClaimedValidation | null)[]> {
  const result = (await db.raw(
    `WITH v (slug, ca_id, account_id, now, owner, lease_ms, "from", "to", authorization_in, order_in) AS (
       VALUES ${starts.map(() => '(?::text, ?::integer, ?::integer, ?::timestamptz, ?::text, ?::integer, ?::text, ?::text, ?::text, ?::text)').join(', ')}
     ),
     started AS (
       UPDATE ?? c SET status = v.to, error = NULL
         FROM v, ?? a, ?? o, ?? acc
        WHERE c.slug = v.slug AND c.status = ANY (string_to_array(v."from", ','))
          AND a.id = c.authorization_id AND a.status = ANY (string_to_array(v.authorization_in, ','))
          AND o.id = a.order_id AND o.status = ANY (string_to_array(v.order_in, ',')) AND o.expires > v.now
          AND o.ca_id = v.ca_id AND o.account_id = v.account_id
          AND acc.id = o.account_id
       RETURNING c.*, v.owner, v.lease_ms, a.identifier_type, a.identifier_value, a.order_id, a.slug AS authorization_slug, acc.thumbprint
     ),
     job AS (${leaseNewJobsSql(`SELECT DISTINCT ON (id) '${JOB_KINDS.acmeValidation}'::text AS kind, id::text AS reference, owner, lease_ms FROM started ORDER BY id`)})
     SELECT * FROM started`,
    [
      ...starts.flatMap((s) => [
        s.slug,
        s.caId,
        s.accountId,
        s.now,
        s.owner,
        s.leaseMs,
        s.start.from.join(','),
        s.start.to,
        s.start.authorizationIn.join(','),
        s.start.orderIn.join(','),
      ]),
      acmeChallenges,
      acmeAuthorizations,
      acmeOrders,
      acmeAccounts,
    ],
  )) as { rows: Row[] };
  const bySlug = new Map(result.rows.map((row) => [String(row.slug), row]));
  return starts.map((s) => {
    const row = bySlug.get(s.slug);
    bySlug.delete(s.slug); // a second start of the same challenge in this group did not start it
    return row ? claimedFromRow(row, row) : null;
  });
}

function claimedFromRow(challenge: Row, context: Row): ClaimedValidation {
  return {
    challenge: challengeFromRow(challenge),
    identifier: { type: String(context.identifier_type) as 'dns' | 'ip', value: String(context.identifier_value) },
    thumbprint: String(context.thumbprint),
    orderId: toNumber(context.order_id),
    authorizationSlug: String(context.authorization_slug),
  };
}

/** The challenge `challengeId` with what validating it needs, in one read (an `acme_validation` job's work). */
export async function findValidation(db: Knex, challengeId: number): Promise<ClaimedValidation | null> {
  const row = (await db(`${acmeChallenges} as c`)
    .join(`${acmeAuthorizations} as a`, 'a.id', 'c.authorization_id')
    .join(`${acmeOrders} as o`, 'o.id', 'a.order_id')
    .join(`${acmeAccounts} as acc`, 'acc.id', 'o.account_id')
    .where('c.id', challengeId)
    .first('c.*', 'a.identifier_type', 'a.identifier_value', 'a.order_id', 'a.slug as authorization_slug', 'acc.thumbprint')) as
    Row | undefined;
  return row ? claimedFromRow(row, row) : null;
}

/** The order `orderId` and its sign request (an `acme_issuance` job's work); null without one. */
export async function findIssuance(db: Knex, orderId: number): Promise<PendingIssuance | null> {
  const order = await findOrderById(db, orderId);
  return order?.request ? { order, request: order.request } : null;
}

/** A certificate to store for the order it was issued for, and the order's step (`completeIssuances`). */
export interface IssuanceCompletion {
  order: AcmeOrderStep;
  certificate: NewCertificate;
}

/**
 * Store certificates with their orders' steps applied (lib/acme/state-machine.ts `onIssued`), in ONE
 * statement: the order rows are locked first (`FOR UPDATE`) while in a status of the step's `from`
 * and without a certificate, so of two runners finishing one order only the first finds it so; the
 * other stores nothing (null), as does the second of two completions of one order in the group. Each
 * `certificate.issued` event names the account of its order (the certificate's requester). The order's
 * `acme_issuance` job is done in the same statement: its work is.
 */
export async function completeIssuances(db: Knex, completions: readonly IssuanceCompletion[]): Promise<(CertificateRecord | null)[]> {
  const now = new Date();
  const first = new Map<number, number>();
  completions.forEach((c, index) => first.has(c.order.id) || first.set(c.order.id, index));
  const unique = [...first.values()].map((index) => completions[index]);
  // Each certificate's event in the same statement, keyed by its order, appended if it was stored
  // (../event-writer.ts `eventsInStatement`): one round trip and one commit per group.
  const events = eventsInStatement(
    unique.map((c) => ({ key: String(c.order.id), event: certificateStored(c.certificate, null, null) })),
    'select s.order_id::text from stored s',
  );
  const { rows } = (await db.raw(
    `WITH incoming (order_id, "from", "to", clear_request, ${CERTIFICATE_COLUMN_LIST}) AS (
       VALUES ${unique.map(() => `(?::integer, ?::text, ?::text, ?::boolean, ${CERTIFICATE_PLACEHOLDERS})`).join(', ')}
     ),
     o AS (
       SELECT o.id FROM ?? o JOIN incoming i ON i.order_id = o.id
        WHERE o.status = ANY (string_to_array(i."from", ',')) AND o.certificate_id IS NULL FOR UPDATE OF o
     ),
     cert AS (
       INSERT INTO ?? (${CERTIFICATE_COLUMN_LIST}, created, updated)
       SELECT ${certificateColumnsOf('i')}, ?, ? FROM incoming i JOIN o ON o.id = i.order_id
       RETURNING id, ca_id, serial
     ),
     done AS (
       UPDATE ?? ao SET status = i."to", certificate_id = c.id, updated = ?,
              request = CASE WHEN i.clear_request THEN NULL ELSE ao.request END
         FROM incoming i JOIN cert c ON c.ca_id = i.ca_id AND c.serial = i.serial
        WHERE ao.id = i.order_id
     ),
     stored AS (SELECT i.order_id, c.id FROM incoming i JOIN cert c ON c.ca_id = i.ca_id AND c.serial = i.serial),
     job AS (${completeJobsOfSql(JOB_KINDS.acmeIssuance, 'SELECT s.order_id::text FROM stored s')}),
     ${events.sql}
     SELECT order_id, id FROM stored`,
    [
      ...unique.flatMap(({ order, certificate }) => [
        order.id,
        order.from.join(','),
        order.to,
        order.set?.request === null,
        ...certificateBindings(certificate),
      ]),
      acmeOrders,
      certificates,
      now,
      now,
      acmeOrders,
      now,
      ...events.bindings,
    ],
  )) as { rows: Row[] };
  const stored = new Map(rows.map((r) => [toNumber(r.order_id), toNumber(r.id)]));
  return completions.map((c, index) => {
    const id = stored.get(c.order.id);
    return id !== undefined && first.get(c.order.id) === index ? insertedCertificateRecord(c.certificate, id, now) : null;
  });
}
