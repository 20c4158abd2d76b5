import { tlsFeatureCodec as codec } from '../../../lib/x509/extensions/tls-feature';
import { X509Error } from '../../../lib/x509/errors';
import { opensslExtension } from './helpers/openssl-extensions';
import { issuesOf } from './helpers/issues';

describe('tls_feature codec', () => {
  test('matches openssl both ways, in certificate order', () => {
    const ext = opensslExtension('1.3.6.1.5.5.7.1.24', ['tlsfeature = status_request_v2, status_request']);
    expect(codec.decode(ext.extnValue)).toEqual(['status_request_v2', 'status_request']);
    const parsed = codec.parse(['MultipleCertStatusRequest', 'OCSPMustStaple']);
    expect(parsed).toEqual(['status_request_v2', 'status_request']);
    expect(codec.encode(parsed).equals(ext.extnValue)).toBe(true);
  });

  test('parse errors', () => {
    expect(issuesOf(() => codec.parse(['status_request', 'OCSPMustStaple']))[0].msg).toBe('status_request: value must be unique');
    expect(issuesOf(() => codec.parse(['foo']))[0]).toEqual({
      type: 'literal_error',
      loc: [0],
      msg: "Input should be 'status_request' or 'status_request_v2'",
    });
  });

  test('an unknown TLS feature number is not representable', () => {
    expect(() => codec.decode(Buffer.from('3003020107', 'hex'))).toThrow(X509Error);
  });
});
