/**
 * EST's policy for one enrolment (RFC 7030 §4.2.1), then the one issuance service of lib/ca: the
 * CSR's self-signature verified (proof of possession), its subject and its subjectAltName asked for
 * as they are, the endpoint's profile and the CA's validity applied by `prepareSignRequest`, the
 * certificate signed and stored with the API user as its requester over `est`.
 */
import { CaError } from '../ca/errors';
import { issue, keepAlone } from '../ca/issuance/issue';
import { prepareSignRequest } from '../ca/issuance/prepare';
import type { Actor, CertificateRecord } from '../ports';
import { parseCsr, type ParsedCsr } from '../x509/csr';
import { X509Error } from '../x509/errors';
import type { ResolvedEndpoint } from './endpoint';
import { estError } from './framing';
import type { EstServices } from './route-types';

/** A refusal of the request's content: 400 with the engine's reason. */
function refused(e: unknown): never {
  if (e instanceof X509Error || e instanceof CaError) throw estError(400, `The certificate request cannot be signed: ${e.message}`);
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

/** Sign `csr` at `endpoint` for `requester`; the stored certificate. */
export async function enrol(
  services: EstServices,
  endpoint: ResolvedEndpoint,
  csr: ParsedCsr,
  requester: Actor,
): Promise<CertificateRecord> {
  const now = new Date();
  const san = csr.requestedExtensions.filter((e) => e.type === 'subject_alternative_name');
  if (csr.subject.length === 0 && san.length === 0) {
    throw estError(400, 'The certificate request names nothing: give a subject or a subjectAltName.');
  }
  let request;
  try {
    request = prepareSignRequest(
      {
        csr: csr.pem,
        subject: csr.subject,
        extensions: san.map((e) => ({ ...e, critical: csr.subject.length === 0 })),
        profile: endpoint.profile,
      },
      {
        ca: endpoint.ca,
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
    return await issue(services.signing, endpoint.ca, request, requester, keepAlone(services.store), now);
  } catch (e) {
    refused(e);
  }
}
