import { parseExtension } from '../../../lib/x509/extensions';
import { subjectInformationAccessCodec as codec } from '../../../lib/x509/extensions/subject-information-access';
// The corpus has no SIA extension; openssl is the oracle here.
import { cleanupOpenssl, issuesOf, opensslExtension } from './extension-fixtures';

afterAll(cleanupOpenssl);

const CA_REPOSITORY = '1.3.6.1.5.5.7.48.5';
const uri = (value: string) => ({ type: 'URI', value });
/** A value parsed as the whole extension: the access-method rule belongs to the extension model (codec `checkModel`). */
const asExtension = (value: unknown) => parseExtension({ type: 'subject_information_access', value });

describe('subject_information_access codec', () => {
  test('envelope facts of models.md §5', () => {
    expect([codec.type, codec.oid, codec.defaultCritical, codec.requiredCritical, codec.configurable]).toEqual([
      'subject_information_access',
      '1.3.6.1.5.5.7.1.11',
      false,
      false,
      false,
    ]);
  });

  test('agrees with openssl', () => {
    const der = opensslExtension('1.3.6.1.5.5.7.1.11', 'subjectInfoAccess = caRepository;URI:http://repo.example/certs/');
    const expected = [{ access_method: CA_REPOSITORY, access_location: uri('http://repo.example/certs/') }];
    expect(codec.decode(der)).toEqual(expected);
    expect(codec.encode(codec.parse(expected)).toString('hex')).toBe(der.toString('hex'));
  });

  test('the ca_repository alias is accepted and comes back dotted', () => {
    const value = codec.parse([{ access_method: 'ca_repository', access_location: uri('http://repo.example') }]);
    expect(value).toEqual([{ access_method: CA_REPOSITORY, access_location: uri('http://repo.example') }]);
    expect(codec.decode(codec.encode(value))).toEqual(value);
  });

  test('rule: only ca_repository is acceptable', () => {
    expect(issuesOf(() => asExtension([{ access_method: 'ocsp', access_location: uri('http://o.example') }]))).toEqual([
      { type: 'value_error', loc: [], msg: '1.3.6.1.5.5.7.48.1: access_method not acceptable for this extension.' },
    ]);
  });

  test('rule: the list must not be empty', () => {
    expect(issuesOf(() => codec.parse([]))).toEqual([{ type: 'value_error', loc: [], msg: 'value must not be empty' }]);
  });
});
