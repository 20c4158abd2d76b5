/**
 * `ca-admin edit_ca --default-hostname HOST[:PORT]`: the CA's OCSP, CRL and CA-issuer URLs for the
 * certificates it signs, derived again for a new host exactly as init_ca derives them (lib/ca/
 * sign-urls.ts) — what the example server tells an operator to run after a start on another PORT.
 * Explicit --sign-* options win, as in init_ca; the other sign_* settings stay.
 */
import { signUrlsFor } from '../../lib/ca/sign-urls';
import { signUrls } from '../../examples/host-server/sign-url-check';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture } from './helpers';

describe.each(testDatabaseTargets())('edit_ca --default-hostname on $name', (target) => {
  const f = cliFixture(target);

  it('moves the sign_* URLs to the new host, as init_ca would have made them', async () => {
    await f.cli(['init_ca', '--key-type', 'Ed25519', '--default-hostname', 'localhost:8000', 'Moved', 'CN=moved.example.com']);
    const before = (await f.db.store.findCaByName('Moved'))!;
    expect(signUrls(before).every((url) => url.startsWith('http://localhost:8000/django_ca/'))).toBe(true);
    const r = await f.cli(['edit_ca', 'Moved', '--default-hostname', 'localhost:8030']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const after = (await f.db.store.findCaByName('Moved'))!;
    const expected = signUrlsFor({ hostname: 'localhost:8030' }, before.serial);
    expect(after.signAuthorityInformationAccess).toEqual(expected.signAuthorityInformationAccess);
    expect(after.signCrlDistributionPoints).toEqual(expected.signCrlDistributionPoints);
    expect(signUrls(after)).toHaveLength(3);
  });

  it('leaves an explicit --sign-ocsp-responder/--sign-ca-issuer in place of the derived AIA', async () => {
    await f.cli(['init_ca', '--key-type', 'Ed25519', 'Explicit', 'CN=explicit.example.com']);
    const ca = (await f.db.store.findCaByName('Explicit'))!;
    const r = await f.cli([
      'edit_ca',
      'Explicit',
      '--default-hostname',
      'ca.example.com',
      '--sign-ocsp-responder',
      'http://ocsp.example.com/',
      '--sign-ca-issuer',
      'http://issuer.example.com/ca.der',
    ]);
    expect(r.code).toBe(0);
    const after = (await f.db.store.findCaByName('Explicit'))!;
    expect(signUrls(after)).toEqual([
      'http://ocsp.example.com/',
      'http://issuer.example.com/ca.der',
      `http://ca.example.com/django_ca/crl/${ca.serial}/`,
    ]);
  });
});
