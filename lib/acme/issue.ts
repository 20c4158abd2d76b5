/**
 * Issuing an ACME order (RFC 8555 §7.4): the finalize request's CSR becomes a sign request of the
 * CA's `acme_profile` — the names of the order as subjectAltName, the first DNS name as common name,
 * the order's `notAfter` or `CA_ACME_DEFAULT_CERT_VALIDITY` — signed by the one issuing service of
 * lib/ca, and stored with the order made `valid` in the same transaction, the event naming the account.
 */
import { CaError } from '../ca/errors';
import { issue, keepWithAcmeOrder } from '../ca/issuance/issue';
import { prepareIssuance } from '../ca/issuance/prepare';
import type { KeyBackends } from '../ca/key-backends';
import type { IntentLedger } from '../ca/issuance/sign';
import type { Profiles } from '../ca/profiles';
import { clampToCa } from '../ca/signing-ca';
import type { AcmeOrderRecord, AcmeStore, Actor, CaRecord, CertificateRecord, SignRequest } from '../ports';
import type { ParsedCsr } from '../x509/csr';
import { OID_COMMON_NAME } from '../x509/oids';
import { X509Error } from '../x509/errors';
import type { GeneralName } from '../x509/types';
import type { PolicyContext } from '../ca/policy/context';
import { isPolicyRefusal } from '../ca/policy/refusal';
import { asAcmeProblem } from './policy/ca-policy';
import { serverInternal } from './problems';
import { onIssued } from './state-machine';

/** RFC 5280's upper bound for a common name (ub-common-name). */
const MAX_COMMON_NAME = 64;

export interface AcmeSigning {
  acme: AcmeStore;
  keyBackends: KeyBackends;
  profiles: Profiles;
  /** The store, where the intent of each signature is recorded first (lib/ca/issuance/sign.ts). */
  intents: IntentLedger;
}

/** An ACME account acting, from `address` where known (the audit log records it). */
export function acmeActor(accountId: number, address?: string | null): Actor {
  const actor: Actor = { type: 'acme_account', id: accountId, protocol: 'acme' };
  return address ? { ...actor, address } : actor;
}

/** An order's identifier as the subjectAltName entry that names it. */
function generalName(identifier: AcmeOrderRecord['identifiers'][number]): GeneralName {
  return { type: identifier.type === 'dns' ? 'DNS' : 'IP', value: identifier.value };
}

/**
 * The sign request of an order whose CSR passed the checks of lib/acme/policy/csr.ts, held to the
 * CA's issuing policy (docs/guides/issuance-policy.md; a refusal is the ACME problem of ./policy/ca-policy.ts).
 * The order's own `notAfter` must be covered by the CA (new-order checked it); the default validity
 * (`CA_ACME_DEFAULT_CERT_VALIDITY`) is cut to the CA's end.
 */
export function orderSignRequest(
  order: AcmeOrderRecord,
  csr: ParsedCsr,
  ca: CaRecord,
  settings: { profiles: Profiles; defaultValidityMs: number; policy: PolicyContext },
  now: Date,
): SignRequest {
  const dnsNames = order.identifiers.filter((i) => i.type === 'dns').map((i) => i.value);
  const commonName = dnsNames.find((n) => n.length <= MAX_COMMON_NAME);
  const notAfter = order.notAfter ?? clampToCa(ca, new Date(now.getTime() + settings.defaultValidityMs));
  try {
    return prepareIssuance(
      {
        csr,
        subject: commonName ? [{ oid: OID_COMMON_NAME, value: commonName }] : [],
        notAfter,
        profile: ca.acmeProfile,
        extensions: [{ type: 'subject_alternative_name', critical: false, value: order.identifiers.map(generalName) }],
      },
      { ca, profiles: settings.profiles, now, policy: settings.policy },
    );
  } catch (e) {
    if (isPolicyRefusal(e)) throw asAcmeProblem(e);
    if (e instanceof X509Error || e instanceof CaError) throw serverInternal(`The certificate cannot be made: ${e.message}`);
    throw e;
  }
}

/** The order was not moved to `processing` by the request that signed for it: nothing is stored. */
export class IssuanceNotStarted extends Error {
  constructor() {
    super('The ACME order was not started for issuance by this request.');
  }
}

/** What an ACME order's intent answers: one certificate per order, whichever request or instance signs it. */
export function acmeOrderIntent(orderId: number): string {
  return `acme-order:${orderId}`;
}

/**
 * Sign and store; the order becomes `valid` with its certificate, requested by its account from the
 * address it was finalized from. With `started` (finalize moves the order to `processing` while the
 * intent is recorded, lib/acme/finalize.ts), nothing is signed unless that move succeeded; else
 * IssuanceNotStarted.
 */
export function issueOrder(
  signing: AcmeSigning,
  ca: CaRecord,
  order: AcmeOrderRecord,
  request: SignRequest,
  started?: Promise<boolean>,
): Promise<CertificateRecord> {
  const ready = started?.then((moved) => {
    if (!moved) throw new IssuanceNotStarted();
  });
  // Settled by signing; this keeps an early refusal (the policy) from leaving it unhandled.
  ready?.catch(() => undefined);
  const asked = { requester: acmeActor(order.accountId, order.sourceAddress), door: 'acme', answers: acmeOrderIntent(order.id), ready };
  return issue(signing, ca, request, asked, keepWithAcmeOrder(signing.acme, onIssued(order.id)));
}
