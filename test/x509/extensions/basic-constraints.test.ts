import { basicConstraintsCodec as codec } from '../../../lib/x509/extensions/basic-constraints';
import { X509Error } from '../../../lib/x509/errors';
import { opensslExtension } from './helpers/openssl-extensions';
import { issuesOf } from './helpers/issues';

describe('basic_constraints codec', () => {
  test.each([
    ['CA:FALSE', { ca: false, path_length: null }],
    ['CA:TRUE', { ca: true, path_length: null }],
    ['CA:TRUE, pathlen:0', { ca: true, path_length: 0 }],
    ['CA:TRUE, pathlen:300', { ca: true, path_length: 300 }],
  ])('%s matches openssl both ways', (conf, value) => {
    const ext = opensslExtension('2.5.29.19', [`basicConstraints = critical, ${conf}`]);
    expect(codec.decode(ext.extnValue)).toEqual(value);
    expect(codec.encode(codec.parse(value)).equals(ext.extnValue)).toBe(true);
  });

  test('parse errors', () => {
    expect(issuesOf(() => codec.parse({ ca: false, path_length: 1 }))[0].msg).toBe('path_length must be None when ca is False');
    expect(issuesOf(() => codec.parse({}))).toEqual([
      { type: 'missing', loc: ['ca'], msg: 'Field required' },
      { type: 'missing', loc: ['path_length'], msg: 'Field required' },
    ]);
    expect(issuesOf(() => codec.parse({ ca: true, path_length: -1 }))).toEqual([
      { type: 'greater_than_equal', loc: ['path_length'], msg: 'Input should be greater than or equal to 0' },
    ]);
    expect(issuesOf(() => codec.parse({ ca: 'yes', path_length: 1.5 })).map((i) => i.type)).toEqual(['bool_type', 'int_from_float']);
  });

  test('decode accepts an explicitly encoded cA FALSE but rejects a path length without cA', () => {
    expect(codec.decode(Buffer.from('3003010100', 'hex'))).toEqual({ ca: false, path_length: null });
    expect(() => codec.decode(Buffer.from('3003020101', 'hex'))).toThrow(X509Error);
  });
});
