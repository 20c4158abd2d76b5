/**
 * Changing a CA: the model rules of its editable fields, one home for the API (`PUT /ca/{serial}/`)
 * and for `editCa` (`ca-admin edit_ca`, code).
 *
 * Field rules (`caPatchProblems`) are Django's `full_clean()` in substance and wording: non-empty
 * name, unique name, URLs of at most 200 characters, OCSP validity ranges, a non-empty ACME profile.
 * The API reports them together as one 400 whose detail lists every field in model order, in the
 * original's wording: `{'website': ['Enter a valid URL.']}`. Before that, the API body is turned into
 * a patch: shape problems were already reported by the schema (422); the sign_* values are normalised
 * by the engine (aliases → dotted OIDs, defaults filled in; problems → 422 under
 * `body.data.sign_...`); `null` for a column that cannot hold it is a 400 naming the field (docs/reference/differences.md
 * D10), not a database crash. Nothing is saved when anything is wrong.
 */
import { actingAs, StoreConflictError, type Actor, type CaPatch, type CaRecord, type CaSignExtensions, type Store } from '../ports';
import { atLoc, collectIssues } from '../x509/errors';
import { parseExtension } from '../x509/extensions';
import type { Extension, ExtensionType } from '../x509/types';
import { CA_FIELDS } from '../ports/ca-fields';
import { CaError } from './errors';

/** Field name → messages, in model order. */
type Messages = Map<string, string[]>;

/** Model declaration order of the editable fields (the order of the 400 detail). */
const FIELD_ORDER = [
  'name',
  'sign_authority_information_access',
  'sign_certificate_policies',
  'sign_crl_distribution_points',
  'sign_issuer_alternative_name',
  'caa_identity',
  'website',
  'terms_of_service',
  'ocsp_responder_key_validity',
  'ocsp_response_validity',
  'acme_enabled',
  'acme_registration',
  'acme_profile',
  'acme_requires_contact',
] as const;

const SIGN_FIELDS: Record<string, { type: ExtensionType; key: keyof CaSignExtensions }> = {
  sign_authority_information_access: { type: 'authority_information_access', key: 'signAuthorityInformationAccess' },
  sign_certificate_policies: { type: 'certificate_policies', key: 'signCertificatePolicies' },
  sign_crl_distribution_points: { type: 'crl_distribution_points', key: 'signCrlDistributionPoints' },
  sign_issuer_alternative_name: { type: 'issuer_alternative_name', key: 'signIssuerAlternativeName' },
};

const NOT_NULL = 'This field cannot be null.';
const NOT_BLANK = 'This field cannot be blank.';
const BOOL_NULL = '\u201cNone\u201d value must be either True or False.';
const NAME_TAKEN = 'Certificate Authority with this Name already exists.';

/** Django's URLValidator, in substance: a scheme it accepts and a host. Empty means "no URL". */
function isValidUrl(text: string): boolean {
  if (/\s/.test(text)) return false;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return ['http:', 'https:', 'ftp:', 'ftps:'].includes(url.protocol) && url.hostname !== '' && /^[a-z]+:\/\//i.test(text);
}

/** Python's repr of a str (what `str(ValidationError)` shows). */
function pyRepr(s: string): string {
  if (s.includes("'") && !s.includes('"')) return `"${s}"`;
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The 400 detail of the original: `{'field': ['message', ...], ...}`. */
function detailOf(messages: Messages): string {
  const parts = [...messages].map(([field, list]) => `${pyRepr(field)}: [${list.map(pyRepr).join(', ')}]`);
  return `{${parts.join(', ')}}`;
}

function addTo(messages: Messages, field: string, msg: string): void {
  messages.set(field, [...(messages.get(field) ?? []), msg]);
}

function urlProblem(text: string): string | null {
  const length = [...text].length; // Django counts code points
  if (length > 200) return `Ensure this value has at most 200 characters (it has ${length}).`;
  if (text !== '' && !isValidUrl(text)) return 'Enter a valid URL.';
  return null;
}

function rangeProblem(value: number, min: number, max: number): string | null {
  if (!Number.isInteger(value) || value < min) return `Ensure this value is greater than or equal to ${min}.`;
  if (value > max) return `Ensure this value is less than or equal to ${max}.`;
  return null;
}

/**
 * The model rules of a patch to `ca`, as Django words them, keyed by field name in model order; empty
 * when the patch may be saved.
 */
export async function caPatchProblems(store: Pick<Store, 'findCaByName'>, ca: CaRecord, patch: CaPatch): Promise<Messages> {
  const found: Messages = new Map();
  const check = (field: string, problem: string | null) => {
    if (problem) addTo(found, field, problem);
  };
  if (patch.name !== undefined) check('name', patch.name === '' ? NOT_BLANK : null);
  if (patch.website !== undefined) check('website', urlProblem(patch.website));
  if (patch.termsOfService !== undefined) check('terms_of_service', urlProblem(patch.termsOfService));
  if (patch.ocspResponderKeyValidity !== undefined) {
    check('ocsp_responder_key_validity', rangeProblem(patch.ocspResponderKeyValidity, 1, 32767));
  }
  if (patch.ocspResponseValidity !== undefined) {
    check('ocsp_response_validity', rangeProblem(patch.ocspResponseValidity, 600, 2147483647));
  }
  if (patch.acmeProfile !== undefined) check('acme_profile', patch.acmeProfile === '' ? NOT_BLANK : null);
  // Uniqueness comes after the field rules, as Django's full_clean() reports it.
  if (patch.name && patch.name !== ca.name) {
    const other = await store.findCaByName(patch.name);
    if (other && other.id !== ca.id) addTo(found, 'name', NAME_TAKEN);
  }
  return new Map(FIELD_ORDER.filter((f) => found.has(f)).map((f) => [f, found.get(f) as string[]]));
}

/**
 * The API body of `PUT /ca/{serial}/` → a patch. Throws X509Error (422, extension values) or
 * CaError('invalid') whose message is the original's 400 detail.
 */
export async function caPatchFromBody(store: Pick<Store, 'findCaByName'>, ca: CaRecord, body: Record<string, unknown>): Promise<CaPatch> {
  const patch: CaPatch = {};
  const messages: Messages = new Map();
  const add = (field: string, msg: string): void => addTo(messages, field, msg);
  const has = (field: string): boolean => Object.prototype.hasOwnProperty.call(body, field);

  // Extension values first: malformed values are a 422 before any model rule is looked at.
  const extensions: Partial<Record<keyof CaSignExtensions, Extension | null>> = {};
  collectIssues(
    Object.entries(SIGN_FIELDS)
      .filter(([field]) => has(field))
      .map(([field, { type, key }]) => () => {
        const value = body[field];
        extensions[key] = value === null ? null : atLoc([field], () => parseExtension(value, { expectedType: type }));
      }),
  );

  // Null where the column cannot hold it (D10); otherwise the value goes into the patch.
  for (const field of FIELD_ORDER) {
    if (!has(field)) continue;
    const value = body[field];
    const sign = SIGN_FIELDS[field];
    if (sign) {
      patch[sign.key] = extensions[sign.key] ?? null;
      continue;
    }
    if (value === null) {
      add(field, field.startsWith('acme_') && field !== 'acme_profile' ? BOOL_NULL : NOT_NULL);
      continue;
    }
    const key = CA_FIELDS.find((f) => f.name === field)?.key as keyof CaPatch;
    (patch as Record<string, unknown>)[key] = value;
  }
  for (const [field, list] of await caPatchProblems(store, ca, patch)) for (const msg of list) add(field, msg);
  if (messages.size) {
    const ordered: Messages = new Map(FIELD_ORDER.filter((f) => messages.has(f)).map((f) => [f, messages.get(f) as string[]]));
    throw new CaError('invalid', detailOf(ordered));
  }
  return patch;
}

/**
 * `PUT /ca/{serial}/`: change the fields present in the body of `ca`, the CA the REST API found for the
 * serial (enabled, API-enabled, expired or not: lib/api/visibility.ts). An empty body still saves (and
 * bumps `updated`), as `PUT {}` does upstream.
 */
export async function updateCaFromBody(store: Store, ca: CaRecord, body: Record<string, unknown>, actor?: Actor): Promise<CaRecord> {
  const patch = await caPatchFromBody(store, ca, body);
  try {
    return await actingAs(store, actor).updateCa(ca.id, patch);
  } catch (e) {
    // Another request took the name between our check and the write.
    if (e instanceof StoreConflictError && e.entity === 'ca') throw new CaError('invalid', detailOf(new Map([['name', [NAME_TAKEN]]])));
    throw e;
  }
}

/** edit_ca: only the given fields change; the same model rules as the API, one line per field. */
export async function editCa(store: Store, ca: CaRecord, patch: CaPatch): Promise<CaRecord> {
  const problems = await caPatchProblems(store, ca, patch);
  if (problems.size) {
    const lines = [...problems].map(([field, list]) => `${field}: ${list.join(' ')}`);
    throw new CaError(problems.get('name')?.includes(NAME_TAKEN) ? 'conflict' : 'invalid', lines.join('\n'));
  }
  return Object.keys(patch).length ? store.updateCa(ca.id, patch) : ca;
}
