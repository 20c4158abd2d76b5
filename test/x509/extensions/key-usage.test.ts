import { keyUsageCodec } from '../../../lib/x509/extensions/key-usage';
import { X509Error } from '../../../lib/x509/errors';
import { opensslExtension } from './helpers/openssl-extensions';
import { issuesOf as issues } from './helpers/issues';

const OID = '2.5.29.15';

describe('key_usage codec', () => {
  // openssl writes the named BIT STRING; we must produce the same bytes from the API value and read
  // them back in the reference's canonical order.
  const cases: [string, string[], string[]][] = [
    ['digitalSignature', ['digitalSignature'], ['digital_signature']],
    ['keyCertSign, cRLSign', ['keyCertSign', 'cRLSign'], ['crl_sign', 'key_cert_sign']],
    [
      'digitalSignature, nonRepudiation, keyEncipherment',
      ['nonRepudiation', 'digitalSignature', 'keyEncipherment'],
      ['digital_signature', 'key_encipherment', 'content_commitment'],
    ],
    ['keyAgreement, decipherOnly', ['decipherOnly', 'keyAgreement'], ['decipher_only', 'key_agreement']],
    ['keyAgreement, encipherOnly', ['keyAgreement', 'encipherOnly'], ['encipher_only', 'key_agreement']],
    ['dataEncipherment', ['dataEncipherment'], ['data_encipherment']],
  ];

  test.each(cases)('%s matches openssl both ways', (conf, input, canonical) => {
    const ext = opensslExtension(OID, [`keyUsage = critical, ${conf}`]);
    expect(keyUsageCodec.decode(ext.extnValue)).toEqual(canonical);
    expect(keyUsageCodec.encode(keyUsageCodec.parse(input)).equals(ext.extnValue)).toBe(true);
  });

  test('parse maps aliases and keeps the configured order', () => {
    expect(keyUsageCodec.parse(['nonRepudiation', 'digital_signature', 'keyEncipherment'])).toEqual([
      'content_commitment',
      'digital_signature',
      'key_encipherment',
    ]);
  });

  test('parse errors mirror the reference', () => {
    expect(issues(() => keyUsageCodec.parse([]))).toEqual([{ type: 'value_error', loc: [], msg: 'value must not be empty' }]);
    expect(issues(() => keyUsageCodec.parse(['digital_signature', 'digitalSignature']))[0].msg).toBe(
      'digital_signature: value must be unique',
    );
    const [unknown] = issues(() => keyUsageCodec.parse(['digital_signature', 'unknown']));
    expect(unknown.type).toBe('literal_error');
    expect(unknown.loc).toEqual([1]);
    expect(unknown.msg).toBe(
      "Input should be 'crl_sign', 'data_encipherment', 'decipher_only', 'digital_signature', 'encipher_only', " +
        "'key_agreement', 'key_cert_sign', 'key_encipherment' or 'content_commitment'",
    );
    expect(issues(() => keyUsageCodec.parse(['encipher_only']))[0].msg).toBe(
      'encipher_only and decipher_only can only be set when key_agreement is set',
    );
    expect(issues(() => keyUsageCodec.parse('digital_signature'))[0].type).toBe('list_type');
    expect(issues(() => keyUsageCodec.parse(['toString']))[0].type).toBe('literal_error');
  });

  test('decode refuses what the model cannot represent', () => {
    expect(() => keyUsageCodec.decode(Buffer.from('03020000', 'hex'))).toThrow(X509Error); // no bit set
    expect(() => keyUsageCodec.decode(Buffer.from('03020001', 'hex'))).toThrow(X509Error); // encipherOnly alone
    expect(() => keyUsageCodec.decode(Buffer.from('0403000000', 'hex'))).toThrow(X509Error); // not a BIT STRING
  });
});
