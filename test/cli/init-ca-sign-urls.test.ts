/**
 * init_ca without --default-hostname (nor CA_DEFAULT_HOSTNAME) makes a CA that writes no OCSP,
 * CA-issuer or CRL URL into what it signs: it says so on stderr, naming what is missing, with the
 * edit_ca command that adds them — which, run as printed, does (lib/cli/missing-sign-urls.ts).
 */
import { signUrls } from '../../examples/host-server/sign-url-check';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture } from './helpers';

describe.each(testDatabaseTargets())('init_ca without a default hostname on $name', (target) => {
  const f = cliFixture(target);

  it('warns, names the missing URLs, and the edit_ca it prints adds them', async () => {
    const r = await f.cli(['init_ca', '--key-type', 'Ed25519', 'Bare CA', 'CN=bare.example.com']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^Warning: no --default-hostname \(or CA_DEFAULT_HOSTNAME\): the certificates Bare CA signs will carry no URL/,
    );
    for (const missing of [
      'OCSP responder (--sign-ocsp-responder)',
      'CA issuer (--sign-ca-issuer)',
      'CRL distribution point (--sign-crl-full-name)',
    ]) {
      expect(r.stderr).toContain(missing);
    }
    expect((await f.cli(['view_ca', 'Bare CA'])).stdout).toContain('Certificate extensions for signed certificates:\n    (none)\n');

    const advice = /^ +ca-admin (edit_ca '(.+)' --default-hostname) HOST\[:PORT\]$/m.exec(r.stderr);
    expect(advice).not.toBeNull();
    const edit = await f.cli(['edit_ca', advice![2], '--default-hostname', 'ca.example.com']);
    expect({ code: edit.code, stderr: edit.stderr }).toEqual({ code: 0, stderr: '' });
    const ca = (await f.db.store.findCaByName('Bare CA'))!;
    expect(signUrls(ca)).toEqual([
      `http://ca.example.com/django_ca/ocsp/${ca.serial}/cert/`,
      `http://ca.example.com/django_ca/issuer/${ca.serial}.der`,
      `http://ca.example.com/django_ca/crl/${ca.serial}/`,
    ]);
    expect((await f.cli(['view_ca', 'Bare CA'])).stdout).not.toContain('Certificate extensions for signed certificates:\n    (none)');
  });

  it('names only what is still missing when some URLs are given', async () => {
    const r = await f.cli([
      'init_ca',
      '--key-type',
      'Ed25519',
      'Part',
      'CN=part.example.com',
      '--sign-ocsp-responder', // variadic: after the arguments
      'http://ocsp.example.com/',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('OCSP responder');
    expect(r.stderr).toContain('CA issuer (--sign-ca-issuer), CRL distribution point (--sign-crl-full-name)');
  });

  it('is quiet with --default-hostname, with every URL given, and with --no-default-hostname', async () => {
    const quiet = [
      ['--default-hostname', 'ca.example.com', 'Hosted', 'CN=hosted.example.com'],
      [
        ...['Named', 'CN=named.example.com', '--sign-ocsp-responder', 'http://ocsp.example.com/'],
        ...['--sign-ca-issuer', 'http://ca.example.com/ca.der', '--sign-crl-full-name', 'http://ca.example.com/ca.crl'],
      ],
      ['--no-default-hostname', 'Without', 'CN=without.example.com'],
    ];
    for (const args of quiet) {
      const r = await f.cli(['init_ca', '--key-type', 'Ed25519', ...args]);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
    }
  });
});
