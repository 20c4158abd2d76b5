/**
 * What an endpoint's label may be, for the options (`est.labels`, `scep.labels`) and the endpoints
 * kept in the database alike (docs/guides/est.md, docs/guides/scep.md): one path segment of letters, digits, '_', '.'
 * and '-', and never a segment the module's URLs use otherwise.
 */
import type { EnrolmentProtocol } from '../ports';

export const ENDPOINT_LABEL = /^[A-Za-z0-9_.-]+$/;

/** RFC 7030 §3.2.2's operations: a label named like one would make `/.well-known/est/{op}/…` ambiguous. */
export const EST_OPERATIONS = ['cacerts', 'simpleenroll', 'simplereenroll', 'fullcmc', 'serverkeygen', 'csrattrs'] as const;

/** Path segments that clients append to a SCEP URL (Windows, Cisco, Intune): never a label. */
export const SCEP_CLIENT_SUFFIXES = ['pkiclient.exe', 'cgi-bin'] as const;

export const RESERVED_LABELS: Readonly<Record<EnrolmentProtocol, readonly string[]>> = { EST: EST_OPERATIONS, SCEP: SCEP_CLIENT_SUFFIXES };

/** The longest label the database keeps (migration 0026). */
export const MAX_STORED_LABEL_LENGTH = 64;

/** Why `label` cannot name an endpoint kept in the database for `protocol`, or null when it can. */
export function storedLabelProblem(protocol: EnrolmentProtocol, label: string): string | null {
  if (!ENDPOINT_LABEL.test(label) || RESERVED_LABELS[protocol].includes(label) || label.length > MAX_STORED_LABEL_LENGTH) {
    return (
      `${JSON.stringify(label)} cannot be a label: use up to ${MAX_STORED_LABEL_LENGTH} letters, digits, '_', '.' and '-', ` +
      `and not ${RESERVED_LABELS[protocol].join(', ')}`
    );
  }
  return null;
}
