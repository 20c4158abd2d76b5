/**
 * What the example server says when its demo CAs' OCSP, CRL and CA-issuer URLs name another address
 * than the one it listens on (examples/host-server/sign-url-check.ts). On plain HTTP: the edit_ca
 * commands that move them here (test/examples/host-server-port.test.ts runs them). Over HTTPS: never
 * those — they would write http:// URLs for a port that speaks only TLS — but to serve them over HTTP.
 */
import { signUrlsFor } from '../../lib/ca/sign-urls';
import type { CaRecord } from '../../lib';
import { signUrlWarning } from '../../examples/host-server/sign-url-check';

/** A CA record as far as the check reads it: its name and sign_* URLs made for `hostname`. */
const ca = (name: string, serial: string, hostname: string) => ({ name, ...signUrlsFor({ hostname }, serial) }) as unknown as CaRecord;

const cas = [ca('Example Intermediate', 'AB01', 'localhost:8000'), ca('Example Root', 'CD02', 'localhost:8000')];

test('on plain HTTP: the edit_ca commands that move the URLs to this address', () => {
  const lines = signUrlWarning(cas, 'localhost:8030', '/srv/.ca-data');
  expect(lines[0]).toMatch(/^Warning: the demo CAs write OCSP, CRL and CA-issuer URLs for localhost:8000 /);
  expect(lines).toContain("    DATABASE_URL='/srv/.ca-data' npx ca-admin edit_ca 'Example Intermediate' --default-hostname localhost:8030");
});

test('over HTTPS: no --default-hostname for the TLS port; serve the http:// URLs over HTTP instead', () => {
  const lines = signUrlWarning(cas, 'localhost:8443', '/srv/.ca-data', true);
  expect(lines.join('\n')).not.toMatch(/--default-hostname|edit_ca/);
  expect(lines[0]).toBe(
    'Warning: the demo CAs write http:// OCSP, CRL and CA-issuer URLs for localhost:8000 into the certificates they sign,',
  );
  expect(lines.join('\n')).toContain('Serve them over plain HTTP at localhost:8000 (npm start without TLS_CERT_FILE, on that PORT)');
});

test('nothing to say when the URLs name this address', () => {
  expect(signUrlWarning(cas, 'localhost:8000', '/srv/.ca-data')).toEqual([]);
  expect(signUrlWarning(cas, 'localhost:8000', '/srv/.ca-data', true)).toEqual([]);
});
