/** A fresh key pair's SubjectPublicKeyInfo, parsed as the issuing policy reads a CSR's key (lib/x509/public-key.ts). */
import { generateKeyPairSync } from 'crypto';
import { parsePublicKeyInfo, type PublicKeyInfo } from '../../lib/x509/public-key';

/** `option`: the RSA modulus length, or the EC curve's name. */
export function spki(type: 'rsa' | 'ec' | 'ed25519' | 'ed448', option?: number | string): PublicKeyInfo {
  const pair =
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: option as number })
      : type === 'ec'
        ? generateKeyPairSync('ec', { namedCurve: option as string })
        : type === 'ed25519'
          ? generateKeyPairSync('ed25519')
          : generateKeyPairSync('ed448');
  return parsePublicKeyInfo(pair.publicKey.export({ format: 'der', type: 'spki' }));
}
