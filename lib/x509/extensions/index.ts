/**
 * The extension registry and the extension envelope (docs/COMPATIBILITY.md §2).
 *
 * One codec per extension type, found by OID (reading certificates) or by type key (API input). The
 * envelope functions turn an X.509 `Extension` SEQUENCE into the API's `{type, critical, value}` and back,
 * and validate untrusted envelope input with the reference's messages.
 */
import { bool, octets, oid, parseDer, readBoolean, readOctets, readOid, readSequence, seq, Type, type Node } from '../asn1';
import { X509Error, atLoc, collectIssues, invalid, parseError } from '../errors';
import { isValidOid } from '../oids';
import type { Extension, ExtensionType } from '../types';
import type { ExtensionCodec } from './codec';
import { isPlainObject } from '../plain-object';
import { parseModel, present, requireBase64, requireObject, requireOid } from '../json-input';

import { admissionsCodec } from './admissions';
import { authorityInformationAccessCodec } from './authority-information-access';
import { authorityKeyIdentifierCodec } from './authority-key-identifier';
import { basicConstraintsCodec } from './basic-constraints';
import { certificatePoliciesCodec } from './certificate-policies';
import { crlDistributionPointsCodec } from './crl-distribution-points';
import { extendedKeyUsageCodec } from './extended-key-usage';
import { freshestCrlCodec } from './freshest-crl';
import { inhibitAnyPolicyCodec } from './inhibit-any-policy';
import { issuerAlternativeNameCodec } from './issuer-alternative-name';
import { keyUsageCodec } from './key-usage';
import { msCertificateTemplateCodec } from './ms-certificate-template';
import { nameConstraintsCodec } from './name-constraints';
import { ocspNoCheckCodec } from './ocsp-no-check';
import { policyConstraintsCodec } from './policy-constraints';
import { precertPoisonCodec } from './precert-poison';
import { privateKeyUsagePeriodCodec } from './private-key-usage-period';
import { precertificateSignedCertificateTimestampsCodec, signedCertificateTimestampsCodec } from './signed-certificate-timestamps';
import { subjectAlternativeNameCodec } from './subject-alternative-name';
import { subjectInformationAccessCodec } from './subject-information-access';
import { subjectKeyIdentifierCodec } from './subject-key-identifier';
import { tlsFeatureCodec } from './tls-feature';

export type { ExtensionCodec } from './codec';

/** Every known extension type (all but `unknown`), in the alphabetical order of docs/COMPATIBILITY.md §2 */
export const EXTENSION_CODECS: readonly ExtensionCodec[] = [
  admissionsCodec,
  authorityInformationAccessCodec,
  authorityKeyIdentifierCodec,
  basicConstraintsCodec,
  certificatePoliciesCodec,
  crlDistributionPointsCodec,
  extendedKeyUsageCodec,
  freshestCrlCodec,
  inhibitAnyPolicyCodec,
  issuerAlternativeNameCodec,
  keyUsageCodec,
  msCertificateTemplateCodec,
  nameConstraintsCodec,
  ocspNoCheckCodec,
  policyConstraintsCodec,
  precertPoisonCodec,
  precertificateSignedCertificateTimestampsCodec,
  privateKeyUsagePeriodCodec,
  signedCertificateTimestampsCodec,
  subjectAlternativeNameCodec,
  subjectInformationAccessCodec,
  subjectKeyIdentifierCodec,
  tlsFeatureCodec,
] as unknown as readonly ExtensionCodec[];

const BY_TYPE = new Map<string, ExtensionCodec>(EXTENSION_CODECS.map((c) => [c.type, c]));
const BY_OID = new Map<string, ExtensionCodec>(EXTENSION_CODECS.map((c) => [c.oid, c]));

export function codecByType(type: string): ExtensionCodec | undefined {
  return BY_TYPE.get(type);
}

export function codecByOid(oid: string): ExtensionCodec | undefined {
  return BY_OID.get(oid);
}

/** The 14 types a sign request or a profile may carry (docs/COMPATIBILITY.md §2, "configurable"). */
export const CONFIGURABLE_EXTENSION_TYPES: readonly ExtensionType[] = EXTENSION_CODECS.filter((c) => c.configurable).map((c) => c.type);

/** Every type key, `unknown` included, alphabetically (the tag list of the reference's union errors). */
const ALL_EXTENSION_TYPES: readonly ExtensionType[] = [...EXTENSION_CODECS.map((c) => c.type), 'unknown'].sort() as ExtensionType[];

export interface UnknownExtensionValue {
  oid: string;
  /** base64 of the extension's raw extnValue bytes */
  value: string;
}

function unknownExtension(oid: string, critical: boolean, extnValue: Buffer): Extension<UnknownExtensionValue> {
  return { type: 'unknown', critical, value: { oid, value: extnValue.toString('base64') } };
}

/**
 * Certificate extension → API object. An unknown OID, or bytes the codec cannot read (malformed, or a
 * value the API model cannot represent, such as an unknown TLS feature), becomes `unknown` with the raw
 * bytes, which re-encodes exactly.
 *
 * The critical flag is reported as found. The reference's models check the RFC rule ("must be marked as
 * critical") on input only in practice: the corpus itself has a non-critical name_constraints (Let's
 * Encrypt's ISRG Root X1) that the reference serialises. Callers who want to flag violations can use
 * `criticalViolation`.
 */
export function decodeExtension(oid: string, critical: boolean, extnValue: Buffer): Extension {
  const codec = BY_OID.get(oid);
  if (!codec) return unknownExtension(oid, critical, extnValue);
  try {
    return { type: codec.type, critical, value: codec.decode(extnValue) };
  } catch {
    // Deliberately broad: a certificate we can store must always be readable, whatever its contents.
    return unknownExtension(oid, critical, extnValue);
  }
}

/** The RFC 5280 critical rule of docs/COMPATIBILITY.md §2 for `ext`, as the reference's message, or null when it holds. */
export function criticalViolation(ext: Extension): string | null {
  const required = BY_TYPE.get(ext.type)?.requiredCritical ?? null;
  if (required === null || required === ext.critical) return null;
  return required ? 'this extension must be marked as critical' : 'this extension must be marked as non-critical';
}

/** extnValue bytes of a normalised API extension. */
export function encodeExtensionValue(ext: Extension): { oid: string; der: Buffer } {
  if (ext.type === 'unknown') {
    const value = ext.value as UnknownExtensionValue;
    return { oid: value.oid, der: Buffer.from(value.value, 'base64') };
  }
  const codec = BY_TYPE.get(ext.type);
  if (!codec) throw new X509Error('unsupported', `${ext.type}: unknown extension type`);
  return { oid: codec.oid, der: codec.encode(ext.value) };
}

/** API object (normalised) → X.509 `Extension ::= SEQUENCE { extnID, critical DEFAULT FALSE, extnValue }`. */
export function encodeExtension(ext: Extension): Node {
  const { oid: extnId, der } = encodeExtensionValue(ext);
  const children = [oid(extnId)];
  if (ext.critical) children.push(bool(true)); // DER omits the DEFAULT value
  children.push(octets(der));
  return seq(children);
}

/** One `Extension` SEQUENCE of a certificate (or CSR) → API object. */
export function decodeExtensionNode(node: Node): Extension {
  const items = readSequence(node, 'Extension');
  const extnId = readOid(items[0], 'Extension.extnID');
  let i = 1;
  let critical = false;
  if (items[i]?.type === Type.BOOLEAN) critical = readBoolean(items[i++], 'Extension.critical');
  const extnValue = readOctets(items[i++], 'Extension.extnValue');
  if (i !== items.length) throw parseError('Extension: trailing data');
  return decodeExtension(extnId, critical, extnValue);
}

/** Convenience for DER input: one Extension SEQUENCE as bytes. */
export function decodeExtensionDer(der: Buffer): Extension {
  return decodeExtensionNode(parseDer(der, 'Extension'));
}

export interface ParseExtensionOptions {
  /** The slot's type (CA `sign_*` fields, profile entries): `type` may be omitted, and must match if given. */
  expectedType?: ExtensionType;
  /** `type` is the union's discriminator and must be present (sign request `extensions`). */
  requireType?: boolean;
  /** Only the 14 configurable types are accepted. */
  configurableOnly?: boolean;
  /**
   * Check the RFC 5280 critical rule (default true). The reference skips it (its `validate_required_critical`
   * context) when it re-validates what it read from a certificate, e.g. a stored non-critical
   * name_constraints; do the same when loading values that came from certificates.
   */
  validateRequiredCritical?: boolean;
}

function tagList(types: readonly string[]): string {
  return types.map((t) => `'${t}'`).join(', ');
}

function parseUnknownValue(input: unknown): UnknownExtensionValue {
  return parseModel<UnknownExtensionValue>(
    requireObject(present(input)),
    { oid: requireOid, value: (v) => requireBase64(v).toString('base64') },
    ['oid', 'value'],
  );
}

function resolveType(input: Record<string, unknown>, opts: ParseExtensionOptions): ExtensionType {
  const given = input.type;
  if (given === undefined) {
    if (opts.expectedType && !opts.requireType) return opts.expectedType;
    throw new X509Error('validation', "Unable to extract tag using discriminator 'type'", [
      { type: 'union_tag_not_found', loc: [], msg: "Unable to extract tag using discriminator 'type'" },
    ]);
  }
  if (opts.expectedType && given !== opts.expectedType) {
    throw invalid(`Input should be '${opts.expectedType}'`, ['type'], 'literal_error');
  }
  const allowed = opts.configurableOnly ? CONFIGURABLE_EXTENSION_TYPES : ALL_EXTENSION_TYPES;
  if (typeof given !== 'string' || !allowed.includes(given as ExtensionType)) {
    const msg = `Input tag '${String(given)}' found using 'type' does not match any of the expected tags: ${tagList(allowed)}`;
    throw invalid(msg, [], 'union_tag_invalid');
  }
  return given as ExtensionType;
}

/**
 * Untrusted envelope input → normalised Extension. Issues are located relative to the envelope
 * (`['critical']`, `['value', ...]`, `['type']`, or `[]` for the discriminator and for rules of the
 * whole extension); the caller adds where the envelope sits. In a discriminated union
 * (`requireType`, the `extensions` list of a sign request) every issue found once the tag is known
 * carries the tag first, as pydantic reports it: `['key_usage', 'value', 0]` — so the caller's
 * `extensions, 0` completes the reference's `loc`. A bad or missing tag stays at `[]`.
 */
export function parseExtension(input: unknown, opts: ParseExtensionOptions = {}): Extension {
  if (!isPlainObject(input)) {
    throw invalid('Input should be a valid dictionary or object to extract fields from', [], 'model_attributes_type');
  }
  const type = resolveType(input, opts);
  return opts.requireType ? atLoc([type], () => parseEnvelope(input, type, opts)) : parseEnvelope(input, type, opts);
}

/** `critical` and `value` of an envelope whose type is known, then the rules of the whole extension. */
function parseEnvelope(input: Record<string, unknown>, type: ExtensionType, opts: ParseExtensionOptions): Extension {
  const codec = type === 'unknown' ? null : BY_TYPE.get(type)!;
  const defaultCritical = codec ? codec.defaultCritical : null;
  const requiredCritical = codec ? codec.requiredCritical : null;

  let critical = defaultCritical ?? false;
  let value: unknown = null;
  collectIssues([
    () => {
      const given = input.critical;
      if (given === undefined) {
        if (defaultCritical === null) throw invalid('Field required', ['critical'], 'missing');
        return;
      }
      if (typeof given !== 'boolean') throw invalid('Input should be a valid boolean', ['critical'], 'bool_type');
      critical = given;
      if (requiredCritical !== null && critical !== requiredCritical && opts.validateRequiredCritical !== false) {
        throw invalid(requiredCritical ? 'this extension must be marked as critical' : 'this extension must be marked as non-critical', [
          'critical',
        ]);
      }
    },
    () => {
      value = atLoc(['value'], () => (codec ? codec.parse(input.value) : parseUnknownValue(input.value)));
    },
  ]);
  // Model rules run on a valid model only, as the reference's model validators do.
  codec?.checkModel?.(value);
  return { type, critical, value };
}

/** Whether `oid` is a syntactically valid extension OID (for callers building `unknown` values). */
export function isExtensionOid(oid: string): boolean {
  return isValidOid(oid);
}
