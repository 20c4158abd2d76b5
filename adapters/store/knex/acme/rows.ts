/** Row ⇄ record mapping of the ACME tables (migration 0006) to lib/ports/acme-store.ts. */
import type {
  AcmeAccountRecord,
  AcmeAccountStatus,
  AcmeAuthorizationRecord,
  AcmeAuthorizationStatus,
  AcmeChallengeRecord,
  AcmeChallengeStatus,
  AcmeChallengeType,
  AcmeErrorDocument,
  AcmeIdentifier,
  AcmeOrderRecord,
  AcmeOrderStatus,
  SignRequest,
} from '../../../../lib/ports';
import type { Row } from '../rows';
import { fromJson, fromNullableJson, toDate, toNullableDate, toNullableNumber, toNumber } from '../values';

export function accountFromRow(row: Row): AcmeAccountRecord {
  return {
    id: toNumber(row.id),
    slug: String(row.slug),
    caId: toNumber(row.ca_id),
    status: String(row.status) as AcmeAccountStatus,
    jwk: fromJson<Record<string, string>>(row.jwk),
    thumbprint: String(row.thumbprint),
    contact: fromJson<string[]>(row.contact),
    termsOfServiceAgreed: Boolean(row.terms_of_service_agreed),
    eabKid: row.eab_kid === null || row.eab_kid === undefined ? null : String(row.eab_kid),
    created: toDate(row.created),
  };
}

/** An order row with `authorization_slugs` (array) and `certificate_serial` joined in. */
export function orderFromRow(row: Row): AcmeOrderRecord {
  const slugs = fromNullableJson<(string | null)[]>(row.authorization_slugs) ?? [];
  return {
    id: toNumber(row.id),
    slug: String(row.slug),
    accountId: toNumber(row.account_id),
    caId: toNumber(row.ca_id),
    status: String(row.status) as AcmeOrderStatus,
    expires: toDate(row.expires),
    notBefore: toNullableDate(row.not_before),
    notAfter: toNullableDate(row.not_after),
    identifiers: fromJson<AcmeIdentifier[]>(row.identifiers),
    authorizations: slugs.filter((s): s is string => typeof s === 'string'),
    request: fromNullableJson<SignRequest>(row.request),
    certificateId: toNullableNumber(row.certificate_id),
    certificateSerial: row.certificate_serial === null || row.certificate_serial === undefined ? null : String(row.certificate_serial),
    error: fromNullableJson<AcmeErrorDocument>(row.error),
    created: toDate(row.created),
    sourceAddress: row.source_address === null || row.source_address === undefined ? null : String(row.source_address),
  };
}

export function challengeFromRow(row: Row): AcmeChallengeRecord {
  return {
    id: toNumber(row.id),
    slug: String(row.slug),
    authorizationId: toNumber(row.authorization_id),
    type: String(row.type) as AcmeChallengeType,
    token: String(row.token),
    status: String(row.status) as AcmeChallengeStatus,
    validated: toNullableDate(row.validated),
    error: fromNullableJson<AcmeErrorDocument>(row.error),
    attempts: toNumber(row.attempts),
  };
}

/** An authorization row with the order's `account_id` and `ca_id` joined in. */
export function authorizationFromRow(row: Row, challenges: AcmeChallengeRecord[]): AcmeAuthorizationRecord {
  return {
    id: toNumber(row.id),
    slug: String(row.slug),
    orderId: toNumber(row.order_id),
    accountId: toNumber(row.account_id),
    caId: toNumber(row.ca_id),
    identifier: { type: String(row.identifier_type) as AcmeIdentifier['type'], value: String(row.identifier_value) },
    wildcard: Boolean(row.wildcard),
    status: String(row.status) as AcmeAuthorizationStatus,
    expires: toDate(row.expires),
    challenges,
  };
}
