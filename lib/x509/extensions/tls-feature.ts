/**
 * TLS Feature (RFC 7633): SEQUENCE OF INTEGER (TLS extension numbers) ⇄ array of feature names
 * (docs/COMPATIBILITY.md §2). Only the two features cryptography knows are representable; anything else makes
 * decode fail, and the registry reports the extension as `unknown`.
 */
import { integer, parseDer, readInteger, readSequence, seq, toDer } from '../asn1';
import { parseError } from '../errors';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';
import { parseNonEmptySet, present, requireLiteral } from '../json-input';

export type TlsFeatureName = 'status_request' | 'status_request_v2';

const TLS_FEATURE_NAMES: readonly TlsFeatureName[] = ['status_request', 'status_request_v2'];
const TLS_FEATURE_NUMBERS: Readonly<Record<TlsFeatureName, number>> = { status_request: 5, status_request_v2: 17 };
const TLS_FEATURE_ALIASES: Readonly<Record<string, TlsFeatureName>> = {
  OCSPMustStaple: 'status_request',
  MultipleCertStatusRequest: 'status_request_v2',
};

export const tlsFeatureCodec: ExtensionCodec<TlsFeatureName[]> = {
  type: 'tls_feature',
  oid: EXTENSION_OIDS.tls_feature,
  defaultCritical: false,
  requiredCritical: null,
  configurable: true,

  decode(der) {
    const features = readSequence(parseDer(der, 'TLSFeature'), 'TLSFeature').map((n) => {
      const number = readInteger(n, 'TLSFeature');
      const name = TLS_FEATURE_NAMES.find((f) => BigInt(TLS_FEATURE_NUMBERS[f]) === number);
      if (!name) throw parseError(`TLSFeature: unknown feature ${number}`);
      return name;
    });
    if (features.length === 0) throw parseError('TLSFeature: empty');
    return features;
  },

  encode(features) {
    return toDer(seq(features.map((f) => integer(TLS_FEATURE_NUMBERS[f]))));
  },

  parse(input) {
    return parseNonEmptySet(present(input), (v) =>
      requireLiteral(typeof v === 'string' && Object.hasOwn(TLS_FEATURE_ALIASES, v) ? TLS_FEATURE_ALIASES[v] : v, TLS_FEATURE_NAMES),
    );
  },
};
