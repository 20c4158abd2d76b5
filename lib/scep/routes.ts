/**
 * The SCEP endpoints (RFC 8894 §4), as one table that reads like the list of docs/guides/scep.md. A SCEP
 * URL is one base per endpoint — `{urlPath}scep` for the default CA, `{urlPath}scep/{label}` for a
 * CA, profile or challenge chosen by label — and clients add their own tail to it (`pkiclient.exe`,
 * `cgi-bin/pkiclient.exe`: Windows, Intune, Cisco), so each operation is served at every form. The
 * `operation` query parameter names the operation; one the table lacks is a 400.
 */
import { getCaCaps } from './handlers/get-ca-caps';
import { getCaCert } from './handlers/get-ca-cert';
import { pkiOperationGet, pkiOperationPost } from './handlers/pki-operation';
import type { ScepHandler, ScepOperation, ScepRoute } from './route-types';

/** Every form of an endpoint's URL, relative to `{urlPath}scep` (the base itself is matched as `/`). */
export const SCEP_PATHS = [
  '/',
  '/pkiclient.exe',
  '/cgi-bin/pkiclient.exe',
  '/{label}',
  '/{label}/',
  '/{label}/pkiclient.exe',
  '/{label}/cgi-bin/pkiclient.exe',
] as const;

const atEveryPath = (method: 'GET' | 'POST', operation: ScepOperation, handler: ScepHandler): ScepRoute[] =>
  SCEP_PATHS.map((path) => ({ method, path, operation, handler }));

export const SCEP_ROUTES: readonly ScepRoute[] = [
  // What the server accepts: POST, renewal, the digests and ciphers (§3.5.2). No authentication.
  ...atEveryPath('GET', 'GetCACaps', getCaCaps), // handlers/get-ca-caps.ts → scepCapabilities (capabilities.ts)
  // The RA certificate, then the CA and its chain up to the root, certs-only (§4.2). No authentication.
  ...atEveryPath('GET', 'GetCACert', getCaCert), // handlers/get-ca-cert.ts → ScepRas (lib/scep/ra.ts), caChain (lib/ca/lookup.ts)
  // A signed, encrypted pkiMessage in, a signed CertRep out (§3.3): PKCSReq with the challenge password,
  // RenewalReq signed by the certificate being renewed, GetCert, CertPoll.
  ...atEveryPath('GET', 'PKIOperation', pkiOperationGet), // handlers/pki-operation.ts → answerPkiMessage (pki-message.ts) → enrol (lib/enrolment)
  ...atEveryPath('POST', 'PKIOperation', pkiOperationPost),
];
