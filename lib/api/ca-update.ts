/**
 * `PUT /ca/{serial}/` body → a CA patch, with the checks the original runs in `full_clean()`
 * (reference/api.md §7.5).
 *
 * Shape problems were already reported by the schema (422). The sign_* values are normalised by the
 * engine (aliases → dotted OIDs, defaults filled in; problems → 422 under `body.data.sign_...`). What
 * remains are the model rules, reported together as one 400 whose detail lists every field in model
 * order, in the original's wording: `{'website': ['Enter a valid URL.']}`. Contract D10: `null` for a
 * text column that cannot hold it is such a 400 naming the field, not a database crash. Nothing is
 * saved when anything is wrong.
 */
import type { CaPatch, CaRecord, CaSignExtensions, Store } from '../ports';
import { atLoc, collectIssues } from '../x509/errors';
import { parseExtension } from '../x509/extensions';
import type { Extension, ExtensionType } from '../x509/types';
import { badRequest } from './http-errors';

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

function detailOf(messages: Messages): string {
  const parts = [...messages].map(([field, list]) => `${pyRepr(field)}: [${list.map(pyRepr).join(', ')}]`);
  return `{${parts.join(', ')}}`;
}

/**
 * Validate `body` against the CA and the store; return the patch to apply. Throws X509Error
 * (422, extension values) or HttpError 400 (model rules).
 */
export async function caPatchFromBody(store: Store, ca: CaRecord, body: Record<string, unknown>): Promise<CaPatch> {
  const patch: CaPatch = {};
  const messages: Messages = new Map();
  const add = (field: string, msg: string): void => {
    messages.set(field, [...(messages.get(field) ?? []), msg]);
  };
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

  for (const field of FIELD_ORDER) {
    if (!has(field)) continue;
    const value = body[field];
    switch (field) {
      case 'name':
        if (value === null) add(field, NOT_NULL);
        else if (value === '') add(field, NOT_BLANK);
        else patch.name = value as string;
        break;
      case 'caa_identity':
        if (value === null) add(field, NOT_NULL);
        else patch.caaIdentity = value as string;
        break;
      case 'website':
      case 'terms_of_service': {
        if (value === null) {
          add(field, NOT_NULL);
          break;
        }
        const text = value as string;
        if (text.length > 200) add(field, `Ensure this value has at most 200 characters (it has ${text.length}).`);
        else if (text !== '' && !isValidUrl(text)) add(field, 'Enter a valid URL.');
        else if (field === 'website') patch.website = text;
        else patch.termsOfService = text;
        break;
      }
      case 'ocsp_responder_key_validity':
        if (value === null) add(field, NOT_NULL);
        else if ((value as number) < 1) add(field, 'Ensure this value is greater than or equal to 1.');
        else if ((value as number) > 32767) add(field, 'Ensure this value is less than or equal to 32767.');
        else patch.ocspResponderKeyValidity = value as number;
        break;
      case 'ocsp_response_validity':
        if (value === null) add(field, NOT_NULL);
        else if ((value as number) < 600) add(field, 'Ensure this value is greater than or equal to 600.');
        else if ((value as number) > 2147483647) add(field, 'Ensure this value is less than or equal to 2147483647.');
        else patch.ocspResponseValidity = value as number;
        break;
      case 'acme_enabled':
      case 'acme_registration':
      case 'acme_requires_contact':
        if (value === null) add(field, BOOL_NULL);
        else if (field === 'acme_enabled') patch.acmeEnabled = value as boolean;
        else if (field === 'acme_registration') patch.acmeRegistration = value as boolean;
        else patch.acmeRequiresContact = value as boolean;
        break;
      case 'acme_profile':
        if (value === null) add(field, NOT_NULL);
        else if (value === '') add(field, NOT_BLANK);
        else patch.acmeProfile = value as string;
        break;
      default: {
        const sign = SIGN_FIELDS[field];
        if (sign) patch[sign.key] = extensions[sign.key] ?? null;
      }
    }
  }

  // Uniqueness comes after the field rules, as Django's full_clean() reports it.
  if (patch.name !== undefined && patch.name !== ca.name) {
    const other = await store.findCaByName(patch.name);
    if (other && other.id !== ca.id) add('name', 'Certificate Authority with this Name already exists.');
  }
  if (messages.size) throw badRequest(detailOf(messages));
  return patch;
}
