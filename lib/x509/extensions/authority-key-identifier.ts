/**
 * authorityKeyIdentifier (RFC 5280 §4.2.1.1), docs/COMPATIBILITY.md §2:
 *
 *   AuthorityKeyIdentifier ::= SEQUENCE {
 *        keyIdentifier             [0] IMPLICIT OCTET STRING OPTIONAL,
 *        authorityCertIssuer       [1] IMPLICIT GeneralNames OPTIONAL,
 *        authorityCertSerialNumber [2] IMPLICIT INTEGER OPTIONAL }
 */
import {
  type Node,
  children,
  context,
  contentBytes,
  contextTag,
  integerBytes,
  parseDer,
  readIntegerContent,
  readSequence,
  seq,
  toDer,
} from '../asn1';
import { invalid, parseError } from '../errors';
import { decodeGeneralName, encodeGeneralName, parseGeneralName } from '../general-name';
import { EXTENSION_OIDS } from '../oids';
import type { GeneralName } from '../types';
import type { ExtensionCodec } from './codec';
import { toApiInteger } from '../api-integer';
import { nullable, parseEach, parseModel, requireLaxBase64, requireLaxInteger, requireList, requireObject } from '../json-input';

export interface AuthorityKeyIdentifier {
  /** base64 of the key identifier bytes */
  key_identifier: string | null;
  authority_cert_issuer: GeneralName[] | null;
  /** a number when it fits exactly, else a bigint */
  authority_cert_serial_number: number | bigint | null;
}

const WHAT = 'authority_key_identifier';

function decode(der: Buffer): AuthorityKeyIdentifier {
  const parts = readSequence(parseDer(der, WHAT), WHAT);
  const value: AuthorityKeyIdentifier = {
    key_identifier: null,
    authority_cert_issuer: null,
    authority_cert_serial_number: null,
  };
  let i = 0;
  if (parts[i] && contextTag(parts[i]) === 0) {
    value.key_identifier = contentBytes(parts[i++], `${WHAT} keyIdentifier`).toString('base64');
  }
  if (parts[i] && contextTag(parts[i]) === 1) {
    value.authority_cert_issuer = children(parts[i++], `${WHAT} authorityCertIssuer`).map(decodeGeneralName);
  }
  if (parts[i] && contextTag(parts[i]) === 2) {
    const what = `${WHAT} authorityCertSerialNumber`;
    value.authority_cert_serial_number = toApiInteger(readIntegerContent(contentBytes(parts[i++], what), what));
  }
  if (i !== parts.length) throw parseError(`${WHAT}: unexpected element`);
  return value;
}

function encode(value: AuthorityKeyIdentifier): Buffer {
  const parts: Node[] = [];
  if (value.key_identifier !== null) parts.push(context(0, false, Buffer.from(value.key_identifier, 'base64')));
  if (value.authority_cert_issuer !== null) {
    parts.push(context(1, true, value.authority_cert_issuer.map(encodeGeneralName)));
  }
  if (value.authority_cert_serial_number !== null) {
    parts.push(context(2, false, integerBytes(BigInt(value.authority_cert_serial_number))));
  }
  return toDer(seq(parts));
}

function parse(input: unknown): AuthorityKeyIdentifier {
  const value = parseModel<AuthorityKeyIdentifier>(
    requireObject(input, 'AuthorityKeyIdentifierValueModel'),
    {
      key_identifier: nullable(requireLaxBase64),
      // A plain list upstream: neither non-empty nor unique is required.
      authority_cert_issuer: nullable((raw) => parseEach(requireList(raw), parseGeneralName)),
      authority_cert_serial_number: nullable(requireLaxInteger),
    },
    ['key_identifier'],
  );
  if ((value.authority_cert_issuer === null) !== (value.authority_cert_serial_number === null)) {
    throw invalid('authority_cert_issuer and authority_cert_serial_number must both be present or both None');
  }
  if (value.key_identifier === null && value.authority_cert_issuer === null) {
    throw invalid('At least one of key_identifier or authority_cert_issuer/authority_cert_serial_number must be given.');
  }
  return value;
}

export const authorityKeyIdentifierCodec: ExtensionCodec<AuthorityKeyIdentifier> = {
  type: 'authority_key_identifier',
  oid: EXTENSION_OIDS.authority_key_identifier,
  defaultCritical: false,
  requiredCritical: false,
  configurable: false,
  decode,
  encode,
  parse,
};
