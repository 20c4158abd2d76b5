/** init_ca end to end: every key type as root and intermediate, checked by `openssl verify`. */
import { caToJson } from '../../lib/api/serialize';
import { parseCertificate } from '../../lib/x509/certificate';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture, cliRunner } from './helpers';
import { openssl, opensslCsr, opensslVerify } from './openssl';

describe.each(testDatabaseTargets())('init_ca on $name', (target) => {
  const f = cliFixture(target);

  const colons = (hex: string) => (hex.length % 2 ? '0' + hex : hex).match(/../g)!.join(':');

  async function pemOf(name: string): Promise<string> {
    const r = await f.cli(['view_ca', name, '--output-format', 'pem']);
    expect(r.stderr).toBe('');
    return r.stdout;
  }

  const KEY_TYPES: [string, string[], string | null, string][] = [
    // key type, extra options, expected signature hash of the CA certificate, openssl text of the key
    ['RSA', ['--key-size', '2048'], 'SHA-512', 'rsaEncryption'],
    ['DSA', ['--key-size', '2048'], 'SHA-256', 'dsaEncryption'],
    ['EC', ['--elliptic-curve', 'secp384r1'], 'SHA-512', 'id-ecPublicKey'],
    ['Ed25519', [], null, 'ED25519'],
    ['Ed448', [], null, 'ED448'],
  ];

  describe.each(KEY_TYPES)('%s root and intermediate', (keyType, extra, hash, opensslKeyName) => {
    const root = `${keyType}-root`;
    const child = `${keyType}-child`;

    it('creates a root that openssl accepts as a self-signed CA', async () => {
      // One day beyond the default: the intermediate (default expiry) may be made in a later minute and
      // must not outlive its root (cli.md) however slowly the machine runs.
      const r = await f.cli([
        'init_ca',
        '--key-type',
        keyType,
        ...extra,
        '--path-length',
        '1',
        '--expires',
        '3651',
        '--no-default-hostname',
        root,
        `C=AT,O=Example,CN=${root}.example.com`,
      ]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const ca = (await f.db.store.findCaByName(root))!;
      expect(r.stdout).toBe(colons(ca.serial) + '\n');
      const pem = await pemOf(root);
      expect(opensslVerify(f.dir, pem, pem)).toContain(': OK');
      const text = openssl(['x509', '-noout', '-text'], pem);
      expect(text).toContain(opensslKeyName);
      expect(text).toMatch(/CA:TRUE, pathlen:1/);
      expect(text).toMatch(/Certificate Sign, CRL Sign/);
      expect(ca.certificate.signature_hash_algorithm).toBe(hash);
      expect(ca.certificate.subject).toEqual([
        { oid: '2.5.4.6', value: 'AT' },
        { oid: '2.5.4.10', value: 'Example' },
        { oid: '2.5.4.3', value: `${root}.example.com` },
      ]);
      // Defaults of models.md §8 for a CA made by init_ca.
      const json = caToJson(ca);
      expect(json.api_enabled).toBe(false);
      expect(json.key_backend_alias).toBe('default');
      expect(json.parent).toBeNull();
      expect(json.acme_profile).toBe('webserver');
    });

    it('creates an intermediate and signs a leaf; openssl verifies the chain', async () => {
      const r = await f.cli([
        'init_ca',
        '--key-type',
        keyType,
        ...extra,
        '--parent',
        root,
        '--default-hostname',
        'ca.example.com',
        child,
        `CN=${child}.example.com`,
      ]);
      expect(r.stderr).toBe('');
      const parent = (await f.db.store.findCaByName(root))!;
      const ca = (await f.db.store.findCaByName(child))!;
      expect(ca.parentId).toBe(parent.id);
      const rootPem = await pemOf(root);
      const childPem = await pemOf(child);
      expect(opensslVerify(f.dir, rootPem, childPem)).toContain(': OK');

      const csr = opensslCsr(f.dir, `${keyType}-leaf`);
      const signed = await f.cli(['sign_cert', '--ca', child, '--csr', csr, '--subject', `CN=leaf.${keyType}.example.com`]);
      expect(signed.stderr).toBe('');
      expect(opensslVerify(f.dir, rootPem, signed.stdout, [childPem])).toContain(': OK');
      // CA-Issuers, OCSP and CRL all point at the intermediate (docs/reference/differences.md: the original
      // pointed CA-Issuers at the parent).
      const leafText = openssl(['x509', '-noout', '-text'], signed.stdout);
      expect(leafText).toContain(`http://ca.example.com/django_ca/issuer/${ca.serial}.der`);
      expect(leafText).toContain(`http://ca.example.com/django_ca/ocsp/${ca.serial}/cert/`);
      expect(leafText).toContain(`http://ca.example.com/django_ca/crl/${ca.serial}/`);
    });
  });

  describe('init_ca details', () => {
    it('builds the sign_* URLs of signing.md §4 and the intermediate AIA/CRL DP', async () => {
      await f.cli([
        'init_ca',
        '--key-type',
        'EC',
        '--path-length',
        '2',
        '--expires',
        '3651',
        '--default-hostname',
        'localhost:8000',
        'Urls',
        'CN=urls.example.com',
      ]);
      const root = (await f.db.store.findCaByName('Urls'))!;
      const S = root.serial;
      expect(root.signAuthorityInformationAccess).toEqual({
        type: 'authority_information_access',
        critical: false,
        value: [
          {
            access_method: '1.3.6.1.5.5.7.48.1',
            access_location: { type: 'URI', value: `http://localhost:8000/django_ca/ocsp/${S}/cert/` },
          },
          {
            access_method: '1.3.6.1.5.5.7.48.2',
            access_location: { type: 'URI', value: `http://localhost:8000/django_ca/issuer/${S}.der` },
          },
        ],
      });
      expect(root.signCrlDistributionPoints).toEqual({
        type: 'crl_distribution_points',
        critical: false,
        value: [
          {
            full_name: [{ type: 'URI', value: `http://localhost:8000/django_ca/crl/${S}/` }],
            relative_name: null,
            crl_issuer: null,
            reasons: null,
          },
        ],
      });
      // A root's own certificate carries no AIA / CRL DP.
      expect(root.certificate.extensions.map((e) => e.type).sort()).toEqual([
        'authority_key_identifier',
        'basic_constraints',
        'key_usage',
        'subject_key_identifier',
      ]);

      await f.cli([
        'init_ca',
        '--key-type',
        'EC',
        '--parent',
        'Urls',
        '--default-hostname',
        'localhost:8000',
        'UrlsChild',
        'CN=urlschild.example.com',
      ]);
      const child = (await f.db.store.findCaByName('UrlsChild'))!;
      const own = parseCertificate(child.der).extensions;
      expect(own.find((e) => e.type === 'authority_information_access')!.value).toEqual([
        { access_method: '1.3.6.1.5.5.7.48.1', access_location: { type: 'URI', value: `http://localhost:8000/django_ca/ocsp/${S}/ca/` } },
        { access_method: '1.3.6.1.5.5.7.48.2', access_location: { type: 'URI', value: `http://localhost:8000/django_ca/issuer/${S}.der` } },
      ]);
      expect(own.find((e) => e.type === 'crl_distribution_points')!.value).toEqual([
        {
          full_name: [{ type: 'URI', value: `http://localhost:8000/django_ca/crl/ca/${S}/` }],
          relative_name: null,
          crl_issuer: null,
          reasons: null,
        },
      ]);
      // AKI of the intermediate = SKI of the parent.
      const parentSki = root.certificate.extensions.find((e) => e.type === 'subject_key_identifier')!.value;
      expect((own.find((e) => e.type === 'authority_key_identifier')!.value as { key_identifier: string }).key_identifier).toBe(parentSki);
    });

    it('uses CA_DEFAULT_HOSTNAME and CA_URL_PATH; --no-default-hostname disables them', async () => {
      const withEnv = cliRunner(f.db.store, { CA_DEFAULT_HOSTNAME: 'env.example.com', CA_URL_PATH: 'pki/' });
      await withEnv(['init_ca', '--key-type', 'Ed25519', 'EnvHost', 'CN=envhost.example.com']);
      const ca = (await f.db.store.findCaByName('EnvHost'))!;
      expect(JSON.stringify(ca.signCrlDistributionPoints)).toContain(`http://env.example.com/pki/crl/${ca.serial}/`);
      await withEnv(['init_ca', '--key-type', 'Ed25519', '--no-default-hostname', 'NoHost', 'CN=nohost.example.com']);
      const none = (await f.db.store.findCaByName('NoHost'))!;
      expect(none.signAuthorityInformationAccess).toBeNull();
      expect(none.signCrlDistributionPoints).toBeNull();
    });

    it('refuses intermediates below a path length 0 CA (the default)', async () => {
      expect((await f.cli(['init_ca', '--key-type', 'Ed25519', 'Leafy', 'CN=leafy.example.com'])).code).toBe(0);
      const r = await f.cli(['init_ca', '--key-type', 'Ed25519', '--parent', 'Leafy', 'Nope', 'CN=nope.example.com']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toBe('Error: Parent CA cannot create intermediate CA due to path length restrictions.\n');
      expect(await f.db.store.findCaByName('Nope')).toBeNull();
    });

    it('refuses an intermediate that would outlive its parent, and names taken twice', async () => {
      await f.cli(['init_ca', '--key-type', 'Ed25519', '--no-path-length', '--expires', '10', 'Short', 'CN=short.example.com']);
      const r = await f.cli([
        'init_ca',
        '--key-type',
        'Ed25519',
        '--parent',
        'Short',
        '--expires',
        '11',
        'Longer',
        'CN=longer.example.com',
      ]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/^Error: .*outlive.*\n$/);
      const dup = await f.cli(['init_ca', '--key-type', 'Ed25519', 'Short', 'CN=short2.example.com']);
      expect(dup.code).not.toBe(0);
      expect(dup.stderr).toBe('Error: Short: A certificate authority with this name already exists.\n');
    });

    it('init_ca --parent without --expires: an intermediate the default would let outlive its parent ends with it, and says so', async () => {
      // The README's two commands with the default expiry, the root made in an earlier minute: the
      // default (3650 days from now) reaches past the root. A 10-day root shows the same at once.
      const root = await f.cli([
        'init_ca',
        '--key-type',
        'Ed25519',
        '--path-length',
        '1',
        '--expires',
        '10',
        '--no-default-hostname',
        'TenDays',
        'CN=ten.example.com',
      ]);
      expect(root.stderr).toBe('');
      const r = await f.cli([
        'init_ca',
        '--key-type',
        'Ed25519',
        '--no-default-hostname',
        '--parent',
        'TenDays',
        'Capped',
        'CN=capped.example.com',
      ]);
      const parent = (await f.db.store.findCaByName('TenDays'))!;
      const ca = (await f.db.store.findCaByName('Capped'))!;
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(colons(ca.serial) + '\n');
      const until = parent.notAfter.toISOString().replace('.000Z', 'Z');
      expect(r.stderr).toBe(
        `No --expires given: Capped expires with its parent TenDays, at ${until} (the default of 3650 days would outlive it).\n`,
      );
      expect(ca.notAfter).toEqual(parent.notAfter);
      expect(ca.parentId).toBe(parent.id);
      expect(opensslVerify(f.dir, await pemOf('TenDays'), await pemOf('Capped'))).toContain(': OK');
      expect(openssl(['x509', '-noout', '-enddate'], await pemOf('Capped'))).toBe(
        openssl(['x509', '-noout', '-enddate'], await pemOf('TenDays')),
      );

      // An explicit --expires is taken at its word: within the parent's life it is used, beyond it refused.
      const within = await f.cli([
        'init_ca',
        '--key-type',
        'Ed25519',
        '--parent',
        'TenDays',
        '--expires',
        '5',
        '--no-default-hostname',
        'Within',
        'CN=within.example.com',
      ]);
      expect(within).toMatchObject({ code: 0, stderr: '' });
      const beyond = await f.cli([
        'init_ca',
        '--key-type',
        'Ed25519',
        '--parent',
        'TenDays',
        '--expires',
        '11',
        'Beyond',
        'CN=beyond.example.com',
      ]);
      expect(beyond).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `Error: Certificate would outlive the parent CA, which expires ${until}.\n`,
      });
      expect(await f.db.store.findCaByName('Beyond')).toBeNull();
      // A root is never capped, and says nothing.
      expect(
        await f.cli(['init_ca', '--key-type', 'Ed25519', '--no-default-hostname', 'LongRoot', 'CN=long-root.example.com']),
      ).toMatchObject({
        code: 0,
        stderr: '',
      });
    });

    it('rejects an algorithm for EdDSA keys, small RSA keys and the slash subject form', async () => {
      const ed = await f.cli(['init_ca', '--key-type', 'Ed448', '--algorithm', 'SHA-256', 'EdAlg', 'CN=edalg.example.com']);
      expect(ed.stderr).toBe('Error: Ed448 keys do not allow an algorithm for signing.\n');
      const small = await f.cli(['init_ca', '--key-size', '1024', 'Small', 'CN=small.example.com']);
      expect(small.code).not.toBe(0);
      expect(small.stderr).toContain('2048');
      const slash = await f.cli(['init_ca', '--key-type', 'Ed25519', 'Slash', '/C=AT/CN=slash.example.com']);
      expect(slash.code).not.toBe(0);
      expect(slash.stderr).toMatch(/^Error: .+\n$/);
      for (const n of ['EdAlg', 'Small', 'Slash']) expect(await f.db.store.findCaByName(n)).toBeNull();
    });

    it('--api-enable, --no-path-length, --expires and the output formats', async () => {
      const r = await f.cli([
        'init_ca',
        '--key-type',
        'EC',
        '--api-enable',
        '--no-path-length',
        '--no-default-hostname',
        '--expires',
        '30',
        '--output-format',
        'json',
        'Api',
        'CN=api.example.com',
      ]);
      expect(r.stderr).toBe('');
      const json = JSON.parse(r.stdout);
      expect(json.api_enabled).toBe(true);
      expect(Object.keys(json)).toEqual([...Object.keys(json)].sort()); // the CLI's JSON has sorted keys
      const ca = (await f.db.store.findCaByName('Api'))!;
      expect(ca.certificate.extensions.find((e) => e.type === 'basic_constraints')!.value).toEqual({ ca: true, path_length: null });
      const days = (ca.notAfter.getTime() - ca.notBefore.getTime()) / 86_400_000;
      expect(days).toBe(30);
      expect(ca.notBefore.getUTCSeconds()).toBe(0);
      const der = await f.cli(['view_ca', 'Api', '--output-format', 'der']);
      expect(der.stdoutBytes.equals(ca.der)).toBe(true);
      const text = await f.cli(['view_ca', 'Api']);
      expect(text.stdout).toContain('Name: Api');
      expect(text.stdout).toContain('commonName (CN): api.example.com');
      expect(text.stdout).toContain('-----BEGIN CERTIFICATE-----');
    });
  });

  describe('list_cas and edit_ca', () => {
    it('prints every CA in the reference format, disabled ones marked, tree with box drawing', async () => {
      await f.db.truncate(); // list_cas shows everything: start from an empty store
      const local = f.cli;
      await local(['init_ca', '--key-type', 'Ed25519', '--path-length', '2', '--expires', '100', 'Root', 'CN=root.example.com']);
      await local([
        'init_ca',
        '--key-type',
        'Ed25519',
        '--path-length',
        '1',
        '--expires',
        '90',
        '--parent',
        'Root',
        'A',
        'CN=a.example.com',
      ]);
      await local(['init_ca', '--key-type', 'Ed25519', '--expires', '80', '--parent', 'A', 'A1', 'CN=a1.example.com']);
      await local(['init_ca', '--key-type', 'Ed25519', '--expires', '95', '--parent', 'Root', 'B', 'CN=b.example.com']);
      await local(['init_ca', '--key-type', 'Ed25519', '--expires', '50', 'Ec', 'CN=ec.example.com']);
      expect((await local(['edit_ca', 'B', '--disable'])).code).toBe(0);
      const s = async (name: string) => {
        const r = await f.db.store.findCaByName(name);
        return colons(r!.serial);
      };
      const plain = await local(['list_cas']);
      expect(plain.stdout).toBe(
        [
          `${await s('Ec')} - Ec`,
          `${await s('A1')} - A1`,
          `${await s('A')} - A`,
          `${await s('B')} - B (disabled)`,
          `${await s('Root')} - Root`,
          '',
        ].join('\n'),
      );
      const tree = await local(['list_cas', '--tree']);
      expect(tree.stdout).toBe(
        [
          `${await s('Ec')} - Ec`,
          `${await s('Root')} - Root`,
          `│───${await s('A')} - A`,
          `│   └───${await s('A1')} - A1`,
          `└───${await s('B')} - B (disabled)`,
          '',
        ].join('\n'),
      );
    });

    it('edit_ca changes only what is given and works on disabled CAs', async () => {
      await f.cli(['init_ca', '--key-type', 'Ed25519', 'Editable', 'CN=editable.example.com']);
      const before = (await f.db.store.findCaByName('Editable'))!;
      const r = await f.cli([
        'edit_ca',
        before.serial,
        '--api-enable',
        '--disable',
        '--caa',
        'example.com',
        '--website',
        'https://example.com/',
        '--sign-ocsp-responder',
        'http://ocsp.example.com/',
        '--sign-crl-full-name',
        'http://crl.example.com/',
        '--ocsp-response-validity',
        '3600',
      ]);
      expect(r.stderr).toBe('');
      const after = (await f.db.store.findCaByName('Editable'))!;
      expect(after).toMatchObject({
        apiEnabled: true,
        enabled: false,
        caaIdentity: 'example.com',
        website: 'https://example.com/',
        termsOfService: '',
        ocspResponseValidity: 3600,
      });
      expect(after.signAuthorityInformationAccess).toEqual({
        type: 'authority_information_access',
        critical: false,
        value: [{ access_method: '1.3.6.1.5.5.7.48.1', access_location: { type: 'URI', value: 'http://ocsp.example.com/' } }],
      });
      expect(after.signCrlDistributionPoints!.value).toEqual([
        { full_name: [{ type: 'URI', value: 'http://crl.example.com/' }], relative_name: null, crl_issuer: null, reasons: null },
      ]);
      // Disabled CAs are still editable, by name too.
      expect((await f.cli(['edit_ca', 'Editable', '--enable', '--api-disable'])).code).toBe(0);
      expect(await f.db.store.findCaByName('Editable')).toMatchObject({ enabled: true, apiEnabled: false, caaIdentity: 'example.com' });
      const bad = await cliRunner(f.db.store, { CA_ENABLE_ACME: 'true' })(['edit_ca', 'Editable', '--acme-profile', 'nope']);
      expect(bad.stderr).toBe('Error: nope: Profile is not defined.\n');
      const missing = await f.cli(['edit_ca', 'AB:CD:EF', '--enable']);
      expect(missing.stderr).toBe('Error: AB:CD:EF: Certificate authority not found.\n');
      const both = await f.cli(['edit_ca', 'Editable', '--enable', '--disable']);
      expect(both.code).not.toBe(0);
    });
  });
});
