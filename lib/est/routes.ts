/**
 * The EST endpoints (RFC 7030 §3.2.2), as one table that reads like the list of docs/guides/est.md: each
 * operation at `/.well-known/est/{operation}` (the default CA) and at `/.well-known/est/{label}/
 * {operation}` (a CA or profile chosen by label). Each entry names its method, its path and its
 * handler (lib/est/handlers/), with what the handler calls in the comment beside it. A path in no
 * entry falls through to the host app; a path in an entry with another method is a 405.
 */
import { cacerts } from './handlers/cacerts';
import { csrattrs } from './handlers/csrattrs';
import { fullcmcNotOffered } from './handlers/not-implemented';
import { serverkeygen } from './handlers/serverkeygen';
import { simplereenroll } from './handlers/simplereenroll';
import { simpleenroll } from './handlers/simpleenroll';
import type { EstHandler, EstRoute } from './route-types';

/** The same handler without and with a label. */
const both = (method: 'GET' | 'POST', operation: string, handler: EstHandler): EstRoute[] => [
  { method, path: `/${operation}`, handler },
  { method, path: `/{label}/${operation}`, handler },
];

export const EST_ROUTES: readonly EstRoute[] = [
  // The CA and its chain up to the root, certs-only; no authentication (RFC 7030 §4.1).
  ...both('GET', 'cacerts', cacerts), // handlers/cacerts.ts → caChain (lib/ca/lookup.ts)
  // A PKCS#10 in, the certificate out; HTTP Basic, an API user with sign_certificate for the CA (§4.2).
  ...both('POST', 'simpleenroll', simpleenroll), // handlers/simpleenroll.ts → enrol (lib/enrolment/enrol.ts) → issue (lib/ca/issuance)
  // No attributes asked of the CSR: 204 (§4.5.2).
  ...both('GET', 'csrattrs', csrattrs), // handlers/csrattrs.ts
  // Renewal and re-key with the certificate being renewed as TLS client certificate (§4.2.2).
  ...both('POST', 'simplereenroll', simplereenroll), // handlers/simplereenroll.ts → certificateBeingRenewed (lib/enrolment/renewal.ts) → enrol
  // The key pair made by the server, where the endpoint offers it (else 501), over HTTPS only (§4.4).
  ...both('POST', 'serverkeygen', serverkeygen), // handlers/serverkeygen.ts → reKeyedCsr (lib/x509/csr-rekey.ts) → enrol
  // Not served: 501 with the reason (§4.3 full CMC is optional).
  ...both('POST', 'fullcmc', fullcmcNotOffered),
];
