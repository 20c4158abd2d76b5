/**
 * REST resign (docs/COMPATIBILITY.md §3.6): the original's fields (lib/ca/certificates.ts
 * `apiResignFields`) and the body's `not_after`, read into the authority's typed request the way a
 * sign body is (sign-request-json.ts). Validated completely before an order exists
 * (docs/reference/differences.md D3).
 */
import type { CaRecord, CertificateRecord, SignRequest } from '../ports';
import { apiResignFields } from '../ca/certificates';
import type { PolicyContext } from '../ca/policy/context';
import type { Profiles } from '../ca/profiles';
import { prepareResignJson } from './sign-request-json';

export interface PrepareResignOptions {
  ca: CaRecord;
  /** The CA's issuing policy context (lib/ca/policy/context.ts). */
  policy: PolicyContext;
  cert: CertificateRecord;
  profiles: Profiles;
  /** From the request body; default: the original's profile's expires (or CA_DEFAULT_EXPIRES). */
  notAfter?: unknown;
  keyBackendOptions?: Record<string, unknown>;
  defaultExpiresMs?: number;
  now?: Date;
}

export function prepareResignRequest(o: PrepareResignOptions): SignRequest {
  return prepareResignJson({ ...apiResignFields(o.cert, o.ca), keyBackendOptions: o.keyBackendOptions }, o.notAfter, {
    ca: o.ca,
    profiles: o.profiles,
    now: o.now,
    allowUnknownProfile: true,
    defaultExpiresMs: o.defaultExpiresMs,
    policy: o.policy,
  });
}
