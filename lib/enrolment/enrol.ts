/**
 * The enrolment core's one way to make a certificate (docs/DESIGN.md "Enrolment"): the CSR's
 * self-signature verified (proof of possession), its subject and subjectAltName checked against the
 * endpoint's name policy (lib/enrolment/name-policy.ts) and asked for as they are, the endpoint's profile and the CA's validity applied by `prepareSignRequest`, then the one
 * issuance service of lib/ca signs and stores it with the device's requester. EST and SCEP differ in
 * how a request arrives and is authenticated, never in this.
 */
import { CaError } from '../ca/errors';
import { issue, keepLinked } from '../ca/issuance/issue';
import { prepareSignRequest } from '../ca/issuance/prepare';
import type { Signing } from '../ca/issuance/sign';
import type { Profiles } from '../ca/profiles';
import type { Actor, CaRecord, CertificateRecord, Store } from '../ports';
import { parseCsr, type ParsedCsr } from '../x509/csr';
import { X509Error } from '../x509/errors';
import { EnrolmentError } from './errors';
import { checkNamePolicy, type EnrolmentNamePolicy } from './name-policy';

/** What enrolling needs of the router: the store, the CA keys and profiles, the default profile. */
export interface EnrolmentServices {
  store: Store;
  signing: Signing & { profiles: Profiles };
  /** The router's default profile (`CA_DEFAULT_PROFILE`). */
  defaultProfile: string;
}

/** Where a request enrols: the CA, and the profile (null: the router's default). */
export interface EnrolmentTarget {
  ca: CaRecord;
  profile: string | null;
  /** The endpoint's name policy (lib/enrolment/name-policy.ts); null or absent: any name. */
  names?: EnrolmentNamePolicy | null;
}

/** A refusal of the request's content: 400 / badRequest with the engine's reason. */
function refused(e: unknown): never {
  if (e instanceof X509Error || e instanceof CaError)
    throw new EnrolmentError(400, `The certificate request cannot be signed: ${e.message}`);
  throw e;
}

/** The PKCS#10 `der`, parsed and its self-signature verified (proof of possession); else 400. */
export function readCsr(der: Buffer): ParsedCsr {
  try {
    return parseCsr(der, { verify: true });
  } catch (e) {
    refused(e);
  }
}

/**
 * Sign `csr` at `target` for `requester`: the stored certificate. `link` runs in the transaction that
 * stores it (a one-time challenge used up); if it throws, nothing is stored.
 */
export async function enrol(
  services: EnrolmentServices,
  target: EnrolmentTarget,
  csr: ParsedCsr,
  requester: Actor,
  link: (tx: Store, certificate: CertificateRecord) => Promise<void> = async () => {},
): Promise<CertificateRecord> {
  const now = new Date();
  const san = csr.requestedExtensions.filter((e) => e.type === 'subject_alternative_name');
  if (csr.subject.length === 0 && san.length === 0) {
    throw new EnrolmentError(400, 'The certificate request names nothing: give a subject or a subjectAltName.');
  }
  // Every issuance at the endpoint, renewals too: a policy tightened since stops a renewal (README "EST").
  checkNamePolicy(target.names ?? null, csr);
  let request;
  try {
    request = prepareSignRequest(
      {
        csr: csr.pem,
        subject: csr.subject,
        extensions: san.map((e) => ({ ...e, critical: csr.subject.length === 0 })),
        profile: target.profile ?? services.defaultProfile,
      },
      {
        ca: target.ca,
        profiles: services.signing.profiles,
        defaultProfile: services.defaultProfile,
        defaultExpiresMs: services.signing.defaultExpiresMs,
        now,
        parsedCsr: csr,
      },
    );
  } catch (e) {
    refused(e);
  }
  try {
    return await issue(services.signing, target.ca, request, requester, keepLinked(services.store, link), now);
  } catch (e) {
    refused(e);
  }
}
