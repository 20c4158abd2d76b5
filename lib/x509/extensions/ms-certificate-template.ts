/**
 * Microsoft certificate template (szOID_CERTIFICATE_TEMPLATE) ⇄
 * `{"template_id": <dotted>, "major_version": int|null, "minor_version": int|null}` (docs/COMPATIBILITY.md §2).
 *
 *   CertificateTemplate ::= SEQUENCE {
 *     templateID           OBJECT IDENTIFIER,
 *     templateMajorVersion INTEGER (0..4294967295) OPTIONAL,
 *     templateMinorVersion INTEGER (0..4294967295) OPTIONAL }
 *
 * Both versions are untagged, so a minor version cannot be written without a major one: it would be
 * read back as the major version. The reference accepts such input and silently changes its meaning;
 * we reject it.
 */
import { integer, oid, parseDer, readInteger, readOid, readSequence, seq, toDer } from '../asn1';
import { invalid, parseError } from '../errors';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';
import { readSmallNonNegative } from '../api-integer';
import { nullable, parseModel, present, requireInt, requireObject, requireOid } from '../json-input';

export interface MsCertificateTemplateValue {
  template_id: string;
  major_version: number | null;
  minor_version: number | null;
}

export const msCertificateTemplateCodec: ExtensionCodec<MsCertificateTemplateValue> = {
  type: 'ms_certificate_template',
  oid: EXTENSION_OIDS.ms_certificate_template,
  defaultCritical: null,
  requiredCritical: null,
  configurable: true,

  decode(der) {
    const items = readSequence(parseDer(der, 'CertificateTemplate'), 'CertificateTemplate');
    if (items.length < 1 || items.length > 3) throw parseError('CertificateTemplate: wrong number of elements');
    const version = (i: number) =>
      i < items.length ? readSmallNonNegative(readInteger(items[i], 'template version'), 'template version') : null;
    return { template_id: readOid(items[0], 'templateID'), major_version: version(1), minor_version: version(2) };
  },

  encode(value) {
    const children = [oid(value.template_id)];
    if (value.major_version !== null) children.push(integer(value.major_version));
    if (value.minor_version !== null) children.push(integer(value.minor_version));
    return toDer(seq(children));
  },

  parse(input) {
    const version = nullable((v) => requireInt(v, 0));
    const out = parseModel<MsCertificateTemplateValue>(
      requireObject(present(input)),
      { template_id: requireOid, major_version: version, minor_version: version },
      ['template_id'],
    );
    if (out.major_version === null && out.minor_version !== null) {
      throw invalid('minor_version can only be set when major_version is set');
    }
    return out;
  },
};
