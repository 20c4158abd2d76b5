/**
 * Messages that say what to do: a file of the wrong kind is named with what it is not (sign_cert
 * --csr, import_cert, import_ca's key and certificate), and the HSM key backend without its settings
 * names the CA_HSM_* variables docs/operations/hsm.md documents. Nothing is written either way.
 */
import * as path from 'path';
import { Readable } from 'stream';
import type { Store } from '../../lib/ports';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture } from './helpers';
import { openssl, opensslCsr } from './openssl';
import { docSection } from '../helpers/docs';

/** The `CA_HSM_*` names the "Keys in an HSM" page (docs/operations/hsm.md) tells ca-admin users to set. */
function documentedHsmSettings(): string[] {
  const section = docSection('Keys in an HSM').text;
  const names = new Set(section.match(/CA_HSM_[A-Z_]+/g) ?? []);
  names.delete('CA_HSM_ALIAS'); // has a default: nothing to set
  return [...names].sort();
}

async function counts(store: Store): Promise<string> {
  const cas = await store.listCas();
  let certs = 0;
  for (const ca of cas) certs += (await store.listCertificates({ caId: ca.id, includeExpired: true, includeRevoked: true })).length;
  return `${cas.length} CAs, ${certs} certificates`;
}

describe.each(testDatabaseTargets())('ca-admin input files on $name', (target) => {
  const f = cliFixture(target, 'ca-admin-in-');
  let csr: string;
  let caKey: string;
  let caCert: string;

  beforeAll(async () => {
    expect((await f.cli(['init_ca', '--key-type', 'EC', 'Root', 'CN=root.example.com'])).code).toBe(0);
    csr = opensslCsr(f.dir, 'leaf');
    caKey = path.join(f.dir, 'ext.key');
    caCert = path.join(f.dir, 'ext.pem');
    const keyArgs = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl([
      'req',
      '-x509',
      ...keyArgs,
      '-subj',
      '/CN=Ext',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-keyout',
      caKey,
      '-out',
      caCert,
    ]);
  });

  /** The rest of the message after WHAT, for /etc/passwd: why its bytes are not that, which depends on the machine's file. */
  const WHY = ' \\(.+\\)\\.';
  const rx = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const cases: [string, () => [string[], string | RegExp]][] = [
    [
      'sign_cert --csr /etc/passwd',
      () => [
        ['sign_cert', '--ca', 'Root', '--csr', '/etc/passwd', '--subject', 'CN=x.example.com'],
        new RegExp(rx('/etc/passwd is not a PEM or DER certificate signing request (PKCS#10)') + WHY),
      ],
    ],
    [
      'sign_cert --csr with a certificate',
      () => [
        ['sign_cert', '--ca', 'Root', '--csr', caCert, '--subject', 'CN=x.example.com'],
        `${caCert} is not a PEM or DER certificate signing request (PKCS#10) (expected PEM "CERTIFICATE REQUEST", found "CERTIFICATE").`,
      ],
    ],
    [
      'sign_cert --csr a directory',
      () => [
        ['sign_cert', '--ca', 'Root', '--csr', f.dir, '--subject', 'CN=x.example.com'],
        `${f.dir}: Cannot read the CSR: it is a directory.`,
      ],
    ],
    [
      'import_cert /etc/passwd',
      () => [
        ['import_cert', '--ca', 'Root', '/etc/passwd'],
        '/etc/passwd is not a PEM or DER X.509 certificate (certificate: not a SEQUENCE).',
      ],
    ],
    [
      'import_cert with a CSR',
      () => [
        ['import_cert', '--ca', 'Root', csr],
        `${csr} is not a PEM or DER X.509 certificate (expected PEM "CERTIFICATE", found "CERTIFICATE REQUEST").`,
      ],
    ],
    [
      'import_ca with /etc/passwd as the key',
      () => [
        ['import_ca', 'Ext', '/etc/passwd', caCert],
        new RegExp(rx('/etc/passwd is not a PEM or DER private key (PKCS#8, PKCS#1 or SEC1)') + WHY),
      ],
    ],
    [
      'import_ca with key and certificate swapped',
      () => [
        ['import_ca', 'Ext', caCert, caKey],
        `${caCert} is not a PEM or DER private key (PKCS#8, PKCS#1 or SEC1) (its PEM block is "CERTIFICATE", not "… PRIVATE KEY").`,
      ],
    ],
    [
      'import_ca with /etc/passwd as the certificate',
      () => [
        ['import_ca', 'Ext', caKey, '/etc/passwd'],
        '/etc/passwd is not a PEM or DER X.509 certificate (certificate: not a SEQUENCE).',
      ],
    ],
    [
      'import_ca --no-key with the key',
      () => [
        ['import_ca', '--no-key', 'Ext', caKey],
        `${caKey} is not a PEM or DER X.509 certificate (expected PEM "CERTIFICATE", found "PRIVATE KEY").`,
      ],
    ],
  ];

  it.each(cases)('%s: names the file and what it is not, writes nothing', async (_name, build) => {
    const [argv, message] = build();
    const before = await counts(f.db.store);
    const r = await f.cli(argv);
    expect([r.code, r.stdout]).toEqual([1, '']);
    if (typeof message === 'string') expect(r.stderr).toBe(`Error: ${message}\n`);
    else expect(r.stderr).toMatch(new RegExp(`^Error: ${message.source}\n$`));
    expect(await counts(f.db.store)).toBe(before);
  });

  it('standard input is named as such', async () => {
    const r = await f.cli(['sign_cert', '--ca', 'Root', '--csr', '-', '--subject', 'CN=x.example.com'], {
      stdin: Readable.from([Buffer.from('hello\n')]),
    });
    expect(r.stderr).toMatch(/^Error: standard input is not a PEM or DER certificate signing request \(PKCS#10\) \(.*\)\.\n$/);
  });

  it('the right files still work (the checks refuse only what is not the thing)', async () => {
    expect((await f.cli(['import_ca', 'Ext', caKey, caCert])).stderr).toBe('');
    expect((await f.cli(['sign_cert', '--ca', 'Root', '--csr', csr, '--subject', 'CN=ok.example.com'])).stderr).toBe('');
  });

  it('the HSM backend without CA_HSM_LIBRARY_PATH names every setting docs/operations/hsm.md asks for', async () => {
    const settings = documentedHsmSettings();
    expect(settings).toEqual(['CA_HSM_LIBRARY_PATH', 'CA_HSM_TOKEN', 'CA_HSM_USER_PIN']);
    const before = await counts(f.db.store);
    const r = await f.cli(['init_ca', '--key-backend', 'hsm', '--key-type', 'EC', 'Hsm', 'CN=hsm.example.com']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: hsm: Key backend is not configured: set .*docs\/operations\/hsm\.md\.\n$/);
    for (const name of settings) expect(r.stderr).toContain(name);
    expect(await counts(f.db.store)).toBe(before);
  });
});
