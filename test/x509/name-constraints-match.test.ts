/**
 * nameConstraintViolation (lib/x509/name-constraints-match.ts) against an independent oracle: for each
 * name, openssl makes a leaf with that subjectAltName under a CA with nameConstraints and
 * `openssl verify` says whether the path validates (RFC 5280 §4.2.1.10). Our verdict must be
 * openssl's, name by name.
 */
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { nameConstraintViolation, type NameConstraintLists } from '../../lib/x509/name-constraints-match';
import type { GeneralName } from '../../lib/x509/types';
import { openssl, tmpDir } from '../cli/openssl';

const CONSTRAINTS_CONF = [
  'permitted;DNS:example.com',
  'permitted;DNS:.example.net',
  'excluded;DNS:bad.example.com',
  'permitted;IP:10.0.0.0/255.0.0.0',
  'excluded;IP:10.9.0.0/255.255.0.0',
  'permitted;email:.example.com',
  'permitted;email:host.example.org',
  'permitted;URI:.example.com',
].join(',');

const CONSTRAINTS: NameConstraintLists = {
  permitted_subtrees: [
    { type: 'DNS', value: 'example.com' },
    { type: 'DNS', value: '.example.net' },
    { type: 'IP', value: '10.0.0.0/8' },
    { type: 'email', value: '.example.com' },
    { type: 'email', value: 'host.example.org' },
    { type: 'URI', value: '.example.com' },
  ],
  excluded_subtrees: [
    { type: 'DNS', value: 'bad.example.com' },
    { type: 'IP', value: '10.9.0.0/16' },
  ],
};

/** Each name as openssl's subjectAltName syntax and as our GeneralName. */
const NAMES: [string, GeneralName][] = [
  ['DNS:example.com', { type: 'DNS', value: 'example.com' }],
  ['DNS:www.example.com', { type: 'DNS', value: 'www.example.com' }],
  ['DNS:WWW.EXAMPLE.COM', { type: 'DNS', value: 'WWW.EXAMPLE.COM' }],
  ['DNS:*.example.com', { type: 'DNS', value: '*.example.com' }],
  ['DNS:evil.test', { type: 'DNS', value: 'evil.test' }],
  ['DNS:notexample.com', { type: 'DNS', value: 'notexample.com' }],
  ['DNS:bad.example.com', { type: 'DNS', value: 'bad.example.com' }],
  ['DNS:x.bad.example.com', { type: 'DNS', value: 'x.bad.example.com' }],
  ['DNS:example.net', { type: 'DNS', value: 'example.net' }],
  ['DNS:a.example.net', { type: 'DNS', value: 'a.example.net' }],
  ['IP:10.1.2.3', { type: 'IP', value: '10.1.2.3' }],
  ['IP:10.9.1.1', { type: 'IP', value: '10.9.1.1' }],
  ['IP:192.168.1.1', { type: 'IP', value: '192.168.1.1' }],
  ['IP:2001:db8::1', { type: 'IP', value: '2001:db8::1' }],
  ['email:me@mail.example.com', { type: 'email', value: 'me@mail.example.com' }],
  ['email:me@example.com', { type: 'email', value: 'me@example.com' }],
  ['email:me@host.example.org', { type: 'email', value: 'me@host.example.org' }],
  ['email:me@other.org', { type: 'email', value: 'me@other.org' }],
  ['URI:https://www.example.com/x', { type: 'URI', value: 'https://www.example.com/x' }],
  ['URI:https://example.com/x', { type: 'URI', value: 'https://example.com/x' }],
  ['URI:https://evil.test/', { type: 'URI', value: 'https://evil.test/' }],
];

let dir: string;
let caKey: string;
let caCert: string;
/** One leaf key and CSR for every name: only the subjectAltName differs. */
let leafCsr: string;

beforeAll(() => {
  dir = tmpDir('name-constraints-');
  caKey = path.join(dir, 'ca.key');
  caCert = path.join(dir, 'ca.pem');
  openssl([
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', caKey, '-out', caCert,
    '-days', '2', '-subj', '/CN=Constrained CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    '-addext', `nameConstraints=critical,${CONSTRAINTS_CONF}`,
  ]); // prettier-ignore
  leafCsr = path.join(dir, 'leaf.csr');
  openssl([
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    path.join(dir, 'leaf.key'),
    '-out',
    leafCsr,
    '-subj',
    '/O=Leaf',
  ]);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Whether openssl validates a leaf naming `san` under the constrained CA. */
function opensslAccepts(san: string, index: number): boolean {
  const leaf = path.join(dir, `leaf${index}.pem`);
  const ext = path.join(dir, `leaf${index}.ext`);
  fs.writeFileSync(ext, `subjectAltName=${san}\n`);
  openssl(['x509', '-req', '-in', leafCsr, '-CA', caCert, '-CAkey', caKey, '-out', leaf, '-days', '1', '-extfile', ext]);
  try {
    execFileSync('openssl', ['verify', '-CAfile', caCert, leaf], { stdio: 'pipe' });
    return true;
  } catch (e) {
    const text = String((e as { stderr?: Buffer }).stderr ?? '');
    // Only a name-constraint verdict counts; anything else is a broken test set-up.
    expect(text).toMatch(/subtree|name constraint/i);
    return false;
  }
}

describe('nameConstraintViolation', () => {
  test.each(NAMES.map(([san, name], i) => [san, name, i] as const))("%s: our verdict is openssl verify's", (san, name, i) => {
    const ours = nameConstraintViolation(CONSTRAINTS, name) === null;
    expect(ours).toBe(opensslAccepts(san, i));
  });

  test('says which: excluded or outside the permitted subtrees; names of an unconstrained type pass', () => {
    expect(nameConstraintViolation(CONSTRAINTS, { type: 'DNS', value: 'bad.example.com' })).toBe('excluded');
    expect(nameConstraintViolation(CONSTRAINTS, { type: 'DNS', value: 'evil.test' })).toBe('not-permitted');
    expect(
      nameConstraintViolation(
        { permitted_subtrees: [{ type: 'DNS', value: 'example.com' }], excluded_subtrees: null },
        { type: 'IP', value: '192.0.2.1' },
      ),
    ).toBeNull();
    expect(
      nameConstraintViolation({ permitted_subtrees: null, excluded_subtrees: null }, { type: 'DNS', value: 'anything.test' }),
    ).toBeNull();
  });
});
