/** Contract D1: request > profile > CA sign_*; profile null removes; add_* flags pick the CA's URLs. */
import { composeExtensions, mandatoryExtensions } from '../../lib/ca/extensions';
import { resolveProfiles } from '../../lib/ca/profiles';
import type { CaSignExtensions } from '../../lib/ports';
import type { Extension } from '../../lib/x509/types';
import { generateKeyPairSync, createHash } from 'crypto';

const OCSP = '1.3.6.1.5.5.7.48.1';
const ISSUERS = '1.3.6.1.5.5.7.48.2';
const uri = (value: string) => ({ type: 'URI', value });

const CA: CaSignExtensions = {
  signAuthorityInformationAccess: {
    type: 'authority_information_access',
    critical: false,
    value: [
      { access_method: OCSP, access_location: uri('http://ca/ocsp/') },
      { access_method: ISSUERS, access_location: uri('http://ca/issuer.der') },
    ],
  },
  signCertificatePolicies: {
    type: 'certificate_policies',
    critical: false,
    value: [{ policy_identifier: '1.2.3', policy_qualifiers: null }],
  },
  signCrlDistributionPoints: {
    type: 'crl_distribution_points',
    critical: false,
    value: [{ full_name: [uri('http://ca/crl/')], relative_name: null, crl_issuer: null, reasons: null }],
  },
  signIssuerAlternativeName: { type: 'issuer_alternative_name', critical: false, value: [uri('http://ca/')] },
};

const types = (exts: Extension[]) => exts.map((e) => e.type);

describe('composeExtensions', () => {
  const profiles = resolveProfiles({
    strict: {
      extensions: {
        key_usage: { value: ['digitalSignature'] },
        crl_distribution_points: null,
        subject_alternative_name: null,
      },
      add_ocsp_url: false,
      add_issuer_alternative_name: false,
    },
    noissuer: { extensions: {}, add_issuer_url: false, add_ocsp_url: false, add_crl_url: false },
  });

  it('without a profile adds every CA sign_* value after the request, in AIA, CP, CRL DP, IAN order', () => {
    const san: Extension = { type: 'subject_alternative_name', critical: false, value: [{ type: 'DNS', value: 'a.example' }] };
    expect(types(composeExtensions([san], undefined, CA))).toEqual([
      'subject_alternative_name',
      'authority_information_access',
      'certificate_policies',
      'crl_distribution_points',
      'issuer_alternative_name',
    ]);
  });

  it('lets the request win over the profile and the profile over the CA', () => {
    const ku: Extension = { type: 'key_usage', critical: false, value: ['key_agreement'] };
    const aia: Extension = {
      type: 'authority_information_access',
      critical: false,
      value: [{ access_method: OCSP, access_location: uri('http://mine/') }],
    };
    const out = composeExtensions([ku, aia], profiles.get('webserver'), CA);
    expect(out.find((e) => e.type === 'key_usage')).toBe(ku);
    // The request AIA replaces the CA's completely (no merging).
    expect(out.find((e) => e.type === 'authority_information_access')).toBe(aia);
    expect(out.find((e) => e.type === 'extended_key_usage')!.value).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(types(out)).toEqual([
      'key_usage',
      'authority_information_access',
      'extended_key_usage',
      'certificate_policies',
      'crl_distribution_points',
      'issuer_alternative_name',
    ]);
  });

  it('removes what the profile sets to null, even when the request gives it', () => {
    const san: Extension = { type: 'subject_alternative_name', critical: false, value: [{ type: 'DNS', value: 'a.example' }] };
    const out = composeExtensions([san], profiles.get('strict'), CA);
    expect(types(out)).not.toContain('subject_alternative_name');
    expect(types(out)).not.toContain('crl_distribution_points');
    expect(types(out)).not.toContain('issuer_alternative_name'); // add_issuer_alternative_name: false
    expect(out.find((e) => e.type === 'key_usage')!.value).toEqual(['digital_signature']);
  });

  it('keeps only the CA access descriptions the add_*_url flags ask for', () => {
    const strict = composeExtensions([], profiles.get('strict'), CA).find((e) => e.type === 'authority_information_access');
    expect(strict!.value).toEqual([{ access_method: ISSUERS, access_location: uri('http://ca/issuer.der') }]);
    const none = composeExtensions([], profiles.get('noissuer'), CA);
    expect(types(none)).toEqual(['certificate_policies', 'issuer_alternative_name']);
  });

  it('ocsp profile: no OCSP URL from the CA, OCSP no-check added', () => {
    const out = composeExtensions([], profiles.get('ocsp'), CA);
    expect(out.find((e) => e.type === 'authority_information_access')!.value).toEqual([
      { access_method: ISSUERS, access_location: uri('http://ca/issuer.der') },
    ]);
    expect(types(out)).toContain('ocsp_no_check');
  });
});

describe('mandatoryExtensions (signing.md §3.5)', () => {
  it('AKI = CA key id, BC critical ca=false, SKI = SHA-1 of the subject public key bits', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const spki = publicKey.export({ type: 'spki', format: 'der' });
    // Ed25519 SPKI: the last 32 bytes are the subjectPublicKey bit string contents.
    const expectedSki = createHash('sha1')
      .update(spki.subarray(spki.length - 32))
      .digest('base64');
    expect(mandatoryExtensions('a2V5aWQ=', spki)).toEqual([
      {
        type: 'authority_key_identifier',
        critical: false,
        value: { key_identifier: 'a2V5aWQ=', authority_cert_issuer: null, authority_cert_serial_number: null },
      },
      { type: 'basic_constraints', critical: true, value: { ca: false, path_length: null } },
      { type: 'subject_key_identifier', critical: false, value: expectedSki },
    ]);
  });
});
