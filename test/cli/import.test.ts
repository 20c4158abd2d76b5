/** import_ca / import_cert of the whole corpus; each record reads back equal to the corpus JSON. */
import * as fs from 'fs';
import * as path from 'path';
import { caToJson, certificateToJson } from '../../lib/api/serialize';
import { serialToColons } from '../../lib/x509/serial-format';
import { CORPUS_DIR, loadCorpus, type CorpusEntry } from '../helpers/corpus';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture } from './helpers';
import { openssl, opensslCsr, opensslVerify } from './openssl';
import { CA_EXTENSIONS, selfSignedP256 } from '../helpers/openssl-args';

describe.each(testDatabaseTargets())('import_ca and import_cert on $name', (target) => {
  const f = cliFixture(target);

  const corpus = loadCorpus();
  const cas = corpus.filter((e) => e.facts.type === 'ca');
  const certs = corpus.filter((e) => e.facts.type === 'cert');
  const file = (e: CorpusEntry, ext: string) => path.join(CORPUS_DIR, `${e.name}${ext}`);

  /** Canonical JSON (sorted keys) so that extension lists compare as multisets. */
  function canonical(v: unknown): unknown {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  }
  const multiset = (list: unknown[]) => list.map((x) => JSON.stringify(canonical(x))).sort();

  /**
   * The corpus JSON in the form the API emits, where the two knowingly differ: SCT timestamps carry 6
   * fractional digits in the fixture but milliseconds in the API (models.md §6.16), and distribution
   * point `reasons` are a sorted array in ours (contract D8).
   */
  function asApiEmits(extensions: unknown[]): unknown[] {
    return JSON.parse(JSON.stringify(extensions), (key, value: unknown) => {
      if (key === 'timestamp' && typeof value === 'string') return value.replace(/(\.\d{3})\d{3}$/, '$1');
      if (key === 'reasons' && Array.isArray(value)) return [...(value as string[])].sort();
      return value;
    }) as unknown[];
  }

  // Parents first: `child` names `root` as its parent.
  const orderedCas = [...cas].sort((a, b) => Number(!!a.facts.parent) - Number(!!b.facts.parent));

  describe('import_ca', () => {
    it.each(orderedCas.map((e) => [e.name, e] as const))('%s', async (name, entry) => {
      const args = ['import_ca'];
      if (entry.facts.parent) args.push('--parent', entry.facts.parent);
      if (entry.facts.password) args.push('--import-password', entry.facts.password);
      if (entry.keyDer) args.push(name, file(entry, '.key.der'), file(entry, '.pem'));
      else args.push('--no-key', name, file(entry, '.pem'));
      const r = await f.cli(args);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);

      const ca = (await f.db.store.findCaByName(name))!;
      expect(r.stdout).toBe(`Imported CA ${name} (${serialToColons(ca.serial)}).\n`); // one line: what changed
      const json = caToJson(ca);
      expect(json.certificate.serial).toBe(entry.facts.serial);
      expect(json.certificate.subject).toEqual(entry.facts.subject);
      expect(multiset(json.certificate.extensions)).toEqual(multiset(asApiEmits(entry.facts.extensions)));
      if (entry.facts.sha256) expect(json.fingerprints['SHA-256']).toBe(entry.facts.sha256);
      if (entry.facts.sha512) expect(json.fingerprints['SHA-512']).toBe(entry.facts.sha512);
      expect(json.certificate.pem).toBe(entry.pem.replace(/\r\n/g, '\n'));
      // import_ca derives no sign_* URLs (cli.md).
      expect(json.sign_authority_information_access).toBeNull();
      expect(json.sign_crl_distribution_points).toBeNull();
      expect(ca.keyBackendOptions === null).toBe(!entry.keyDer);
      if (entry.facts.parent) expect(json.parent).toBe((await f.db.store.findCaByName(entry.facts.parent))!.id);
    });

    it('refuses an encrypted key without its password, a wrong password and a key of another CA', async () => {
      const pwd = cas.find((e) => e.name === 'pwd')!;
      const root = cas.find((e) => e.name === 'root')!;
      await f.db.truncate();
      const noPassword = await f.cli(['import_ca', 'pwd2', file(pwd, '.key.der'), file(pwd, '.pem')]);
      expect(noPassword.code).not.toBe(0);
      expect(noPassword.stderr).toMatch(/^Error: .*password.*\n$/);
      const wrong = await f.cli(['import_ca', '--import-password', 'nope', 'pwd2', file(pwd, '.key.der'), file(pwd, '.pem')]);
      expect(wrong.stderr).toMatch(/^Error: .*wrong password.*\n$/);
      const mismatch = await f.cli(['import_ca', 'mismatch', file(root, '.key.der'), file(pwd, '.pem')]);
      expect(mismatch.stderr).toBe('Error: The private key does not match the certificate.\n');
      expect(await f.db.store.listCas()).toEqual([]);
    });

    it('a CA imported with --no-key cannot sign; the same CA with its key can', async () => {
      const key = path.join(f.dir, 'fresh.key');
      const pem = path.join(f.dir, 'fresh.pem');
      openssl(selfSignedP256({ keyOut: key, out: pem, subject: '/CN=fresh.example.com', days: 30, extensions: CA_EXTENSIONS }));
      expect((await f.cli(['import_ca', '--no-key', 'Keyless', pem])).code).toBe(0);
      const csr = opensslCsr(f.dir, 'keyless-leaf');
      const denied = await f.cli(['sign_cert', '--ca', 'Keyless', '--expires', '10', '--csr', csr, '--subject', 'CN=leaf.example.com']);
      expect(denied.code).not.toBe(0);
      expect(denied.stderr).toBe(
        'Error: Keyless: The private key of this certificate authority is not available (it was imported without its key), so it cannot sign.\n',
      );
      await f.db.truncate();
      expect((await f.cli(['import_ca', 'Keyed', key, pem])).stderr).toBe('');
      const signed = await f.cli(['sign_cert', '--ca', 'Keyed', '--expires', '10', '--csr', csr, '--subject', 'CN=leaf.example.com']);
      expect(signed.stderr).toBe('');
      expect(opensslVerify(f.dir, fs.readFileSync(pem, 'utf8'), signed.stdout)).toContain(': OK');
    });
  });

  describe('import_cert', () => {
    beforeAll(async () => {
      await f.db.truncate();
      for (const e of orderedCas) {
        const args = ['import_ca', ...(e.facts.parent ? ['--parent', e.facts.parent] : []), '--no-key', e.name, file(e, '.pem')];
        expect((await f.cli(args)).stderr).toBe('');
      }
    });

    it.each(certs.map((e) => [e.name, e] as const))('%s', async (name, entry) => {
      const issuer = cas.some((c) => c.name === entry.facts.ca) ? entry.facts.ca! : 'root';
      const r = await f.cli(['import_cert', '--ca', issuer, file(entry, '.pem')]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const [cert] = await f.db.store.findCertificateBySerial(entry.facts.serial);
      const json = certificateToJson(cert);
      expect(json.certificate.subject).toEqual(entry.facts.subject);
      expect(multiset(json.certificate.extensions)).toEqual(multiset(asApiEmits(entry.facts.extensions)));
      if (entry.facts.sha256) expect(json.fingerprints['SHA-256']).toBe(entry.facts.sha256);
      expect(json).toMatchObject({ csr: null, profile: '', autogenerated: false, revoked: false, revoked_reason: '', watchers: [] });
      expect(json.ca).toBe((await f.db.store.findCaByName(issuer))!.id);
      const cn = entry.facts.subject.find((a) => a.oid === '2.5.4.3');
      expect(cert.cn).toBe(cn ? cn.value : '');
    });

    it('takes DER too, rejects duplicates and garbage', async () => {
      await f.db.truncate();
      const root = cas.find((e) => e.name === 'root')!;
      const leaf = certs.find((e) => e.name === 'root-cert')!;
      await f.cli(['import_ca', '--no-key', 'root', file(root, '.pem')]);
      const der = path.join(f.dir, 'root-cert.der');
      openssl(['x509', '-in', file(leaf, '.pem'), '-outform', 'DER', '-out', der]);
      expect((await f.cli(['import_cert', '--ca', 'root', der])).stderr).toBe('');
      const again = await f.cli(['import_cert', '--ca', 'root', file(leaf, '.pem')]);
      expect(again.stderr).toBe(`Error: ${leaf.facts.serial}: Certificate already exists.\n`);
      const junk = path.join(f.dir, 'junk.pem');
      fs.writeFileSync(junk, 'not a certificate');
      const bad = await f.cli(['import_cert', '--ca', 'root', junk]);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toBe(`Error: ${junk} is not a PEM or DER X.509 certificate (certificate: truncated).\n`);
    });
  });
});
