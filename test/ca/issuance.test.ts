/** The API signing path: prepareSignRequestJson (REST's body read, then the authority: D3/D9 validation up front) and issueFromRequest (D1). */
import * as fs from 'fs';
import * as path from 'path';
import { defaultKeyBackend } from '../../adapters/keys/default-backend';
import { initCa, importCa } from '../../lib/ca/authorities';
import { importCert } from '../../lib/cli/certificates';
import { prepareResignRequest } from '../../lib/api/resign-request';
import { revokeCert } from '../../lib/ca/revocation';
import { CaError } from '../../lib/ca/errors';
import { prepareIssuance } from '../../lib/ca/issuance/prepare';
import { prepareSignRequestJson } from '../../lib/api/sign-request-json';
import { parseCsr, type ParsedCsr } from '../../lib/x509/csr';
import { policyContextOf } from '../../lib/ca/policy/context';
import type { CaRecord, OrderRecord } from '../../lib/ports';
import { resolveProfiles } from '../../lib/ca/profiles';
import { caToJson, certificateToJson, orderToJson } from '../../lib/api/serialize';
import { createApiUser } from '../../lib/accounts/users';
import { X509Error } from '../../lib/x509/errors';
import { openTestDatabase, type TestDatabase } from '../helpers/database';
import { issueFromRequest } from '../helpers/issue';
import { TEST_KEK } from '../cli/helpers';
import { openssl, opensslCsr, opensslVerify, tmpDir } from '../cli/openssl';
import * as bcrypt from 'bcryptjs';
import { selfSignedP256 } from '../helpers/openssl-args';

let db: TestDatabase;
let dir: string;
let csrPem: string;
let parsedCsr: ParsedCsr;
let ec: CaRecord;
let ed: CaRecord;
const keyBackends = [defaultKeyBackend({ keyEncryptionKey: TEST_KEK })];
const profiles = resolveProfiles({
  short: { expires: 7, algorithm: 'SHA-384', extensions: { crl_distribution_points: null, key_usage: { value: ['keyAgreement'] } } },
});

beforeAll(async () => {
  db = await openTestDatabase({ name: 'pglite', url: 'memory://' });
  dir = tmpDir();
  csrPem = fs.readFileSync(opensslCsr(dir, 'req', '/CN=req.example.com'), 'utf8');
  parsedCsr = parseCsr(csrPem);
  const common = { store: db.store, keyBackends, defaultHostname: 'ca.example.com', expiresDays: 365 };
  ec = await initCa({ ...common, name: 'ec', subject: [{ oid: 'CN', value: 'ec.example.com' }], keyType: 'EC' });
  ed = await initCa({ ...common, name: 'ed', subject: [{ oid: 'CN', value: 'ed.example.com' }], keyType: 'Ed25519' });
});
afterAll(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function issuesOf(fn: () => unknown): { loc: (string | number)[]; type: string; msg: string }[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof X509Error && e.code === 'validation') return e.issues;
    throw e;
  }
  throw new Error('no validation error');
}

const subject = [{ oid: '2.5.4.3', value: 'api.example.com' }];
const now = () => new Date();

describe('prepareSignRequestJson', () => {
  it('reports every bad field at once, with locations (D3, D9)', () => {
    const issues = issuesOf(() =>
      prepareSignRequestJson(
        {
          csr: parsedCsr,
          subject: [{ oid: 'C', value: 'Austria' }],
          algorithm: 'MD5',
          notAfter: '2030-01-01T00:00:00',
          extensions: [
            { type: 'key_usage', value: ['digitalSignature'] },
            { type: 'key_usage', value: ['keyAgreement'] },
            { type: 'basic_constraints', value: { ca: true, path_length: null } },
          ],
          profile: 'nope',
        },
        { ca: ec, policy: policyContextOf(ec, []), profiles },
      ),
    );
    const locs = issues.map((i) => i.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['subject.0', 'algorithm', 'not_after', 'extensions.2', 'profile']));
    expect(issues.find((i) => i.loc[0] === 'not_after')!.type).toBe('timezone_aware');
  });

  it('rejects duplicate extension types, past and too-late not_after, algorithms for EdDSA CAs', () => {
    const dup = issuesOf(() =>
      prepareSignRequestJson(
        { csr: parsedCsr, subject, extensions: [{ type: 'ocsp_no_check' }, { type: 'ocsp_no_check' }] },
        { ca: ec, policy: policyContextOf(ec, []), profiles },
      ),
    );
    expect(dup).toEqual([{ type: 'value_error', loc: ['extensions', 1], msg: 'This extension has already been set.' }]);
    const past = issuesOf(() =>
      prepareSignRequestJson(
        { csr: parsedCsr, subject, notAfter: '2020-01-01T00:00:00Z' },
        { ca: ec, policy: policyContextOf(ec, []), profiles },
      ),
    );
    expect(past.map((i) => i.loc)).toEqual([['not_after']]);
    const late = new Date(ec.notAfter.getTime() + 120_000).toISOString();
    const tooLate = issuesOf(() =>
      prepareSignRequestJson({ csr: parsedCsr, subject, notAfter: late }, { ca: ec, policy: policyContextOf(ec, []), profiles }),
    );
    expect(tooLate[0].msg).toMatch(/^Certificate would outlive CA, maximum expiry for this CA is \d+ days \(it expires \d{4}-/);
    const edAlg = issuesOf(() =>
      prepareSignRequestJson({ csr: parsedCsr, subject, algorithm: 'SHA-256' }, { ca: ed, policy: policyContextOf(ed, []), profiles }),
    );
    expect(edAlg).toEqual([{ type: 'value_error', loc: ['algorithm'], msg: 'Ed25519 keys do not allow an algorithm for signing.' }]);
  });

  it('takes the CSR parsed and verified: a CSR whose signature does not verify never reaches it (D4)', () => {
    const der = Buffer.from(csrPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 5] ^= 0x01; // inside the signature
    expect(() => parseCsr(der)).toThrow(expect.objectContaining({ code: 'signature' }));
  });

  it('fixes defaults: profile expires (floored to the minute), algorithm request > profile, profile flag', () => {
    const t = now();
    const req = prepareSignRequestJson(
      { csr: parsedCsr, subject, profile: 'short' },
      { ca: ec, policy: policyContextOf(ec, []), profiles, now: t },
    );
    const expected = Math.floor((t.getTime() + 7 * 86_400_000) / 60_000) * 60_000;
    expect(new Date(req.notAfter!).getTime()).toBe(expected);
    expect(req.algorithm).toBe('SHA-384');
    expect(
      prepareSignRequestJson(
        { csr: parsedCsr, subject, profile: 'short', algorithm: 'SHA-256' },
        { ca: ec, policy: policyContextOf(ec, []), profiles },
      ).algorithm,
    ).toBe('SHA-256');
    const dflt = prepareSignRequestJson({ csr: parsedCsr, subject }, { ca: ec, policy: policyContextOf(ec, []), profiles });
    expect(dflt).toMatchObject({ profile: 'webserver', algorithm: null, autogenerated: false, extensions: [] });
    expect(
      prepareSignRequestJson({ csr: parsedCsr, subject, profile: 'ocsp' }, { ca: ec, policy: policyContextOf(ec, []), profiles })
        .autogenerated,
    ).toBe(true);
    // An EdDSA CA ignores a profile's algorithm rather than failing.
    expect(
      prepareSignRequestJson({ csr: parsedCsr, subject, profile: 'short' }, { ca: ed, policy: policyContextOf(ed, []), profiles })
        .algorithm,
    ).toBeNull();
  });
});

describe("REST's reading and the authority's judgement, together", () => {
  it('one 422 lists the fields REST cannot read and what the authority finds in the others, in field order', () => {
    const issues = issuesOf(() =>
      prepareSignRequestJson(
        {
          csr: parsedCsr,
          subject: 'not a name',
          algorithm: 'SHA-256',
          extensions: [{ type: 'subject_alternative_name', value: [{ type: 'DNS', value: 'host.example.' }] }],
          profile: 'nope',
          autogenerated: 'yes',
          notAfter: '2020-01-01T00:00:00Z',
        },
        { ca: ed, policy: policyContextOf(ed, []), profiles },
      ),
    );
    expect(issues.map((i) => [i.loc.join('.'), i.type])).toEqual([
      ['subject', 'list_type'], // REST could not read it
      ['algorithm', 'value_error'], // the authority: an Ed25519 CA names no hash
      ['extensions.0.value.0.value', 'value_error'], // the authority: not an issuable name
      ['profile', 'value_error'], // the authority: no such profile
      ['autogenerated', 'bool_type'], // REST could not read it
      ['not_after', 'value_error'], // the authority: in the past
    ]);
  });
});

describe('prepareIssuance (the typed entry of ACME, EST, SCEP and ca-admin)', () => {
  const san = (value: string) => ({ type: 'subject_alternative_name' as const, critical: false, value: [{ type: 'DNS' as const, value }] });

  it('makes of typed values the SignRequest REST makes of the same values as JSON', () => {
    const t = new Date();
    const notAfter = new Date(t.getTime() + 3 * 86_400_000 + 30_000);
    const options = { ca: ec, policy: policyContextOf(ec, []), profiles, now: t };
    const typed = prepareIssuance({ csr: parsedCsr, subject, extensions: [san('API.example.com')], notAfter, profile: 'server' }, options);
    const json = prepareSignRequestJson(
      { csr: parsedCsr, subject, extensions: [san('API.example.com')], notAfter: notAfter.toISOString(), profile: 'server' },
      options,
    );
    expect(typed).toEqual(json);
    // Normalised as the model normalises it (a CSR's decoded names too: IDNA), on a whole minute.
    const idn = prepareIssuance({ csr: parsedCsr, subject, extensions: [san('münchen.example')], notAfter }, options);
    expect(idn.extensions[0].value).toEqual([{ type: 'DNS', value: 'xn--mnchen-3ya.example' }]);
    expect(new Date(typed.notAfter!).getUTCSeconds()).toBe(0);
    expect(typed.csr).toBe(parsedCsr.pem);
  });

  it('holds typed values to the same rules, with the same words and places', () => {
    const options = { ca: ec, policy: policyContextOf(ec, []), profiles };
    expect(
      issuesOf(() => prepareIssuance({ csr: parsedCsr, subject, extensions: [san('host.example.')], notAfter: null }, options)),
    ).toEqual([
      {
        type: 'value_error',
        loc: ['extensions', 0, 'value', 0, 'value'],
        msg: expect.stringMatching(/^host\.example\.: cannot be in a certificate: a trailing dot/),
      },
    ]);
    expect(
      issuesOf(() =>
        prepareIssuance({ csr: parsedCsr, subject, extensions: [san('a.example'), san('b.example')], notAfter: null }, options),
      ),
    ).toEqual([{ type: 'value_error', loc: ['extensions', 1], msg: 'This extension has already been set.' }]);
    const bc = { type: 'basic_constraints' as const, critical: true, value: { ca: true, path_length: null } };
    expect(issuesOf(() => prepareIssuance({ csr: parsedCsr, subject, extensions: [bc], notAfter: null }, options))[0]).toMatchObject({
      loc: ['extensions', 0],
      type: 'union_tag_invalid',
    });
  });
});

describe('issueFromRequest', () => {
  const pem = (der: Buffer) =>
    `-----BEGIN CERTIFICATE-----\n${der
      .toString('base64')
      .match(/.{1,64}/g)!
      .join('\n')}\n-----END CERTIFICATE-----\n`;

  it('applies the named profile (D1) and the CA URLs; openssl verifies the result', async () => {
    const request = prepareSignRequestJson(
      {
        csr: parsedCsr,
        subject,
        extensions: [{ type: 'subject_alternative_name', value: [{ type: 'DNS', value: 'api.example.com' }] }],
        profile: 'server',
      },
      { ca: ec, policy: policyContextOf(ec, []), profiles },
    );
    const cert = await db.store.transaction((tx) => issueFromRequest({ store: tx, keyBackends, ca: ec, request, profiles }));
    const types = cert.certificate.extensions.map((e) => e.type);
    expect(types).toEqual([
      'authority_key_identifier',
      'basic_constraints',
      'subject_key_identifier',
      'subject_alternative_name',
      'key_usage',
      'extended_key_usage',
      'authority_information_access',
      'crl_distribution_points',
    ]);
    expect(cert.certificate.extensions.find((e) => e.type === 'extended_key_usage')!.value).toEqual([
      '1.3.6.1.5.5.7.3.2',
      '1.3.6.1.5.5.7.3.1',
    ]);
    expect(cert.profile).toBe('server');
    expect(cert.csr).toBe(request.csr);
    expect(cert.certificate.serial).toMatch(/^[1-9A-F][0-9A-F]{0,39}$/);
    expect(cert.certificate.signature_hash_algorithm).toBe('SHA-512'); // the CA certificate's own hash
    expect(cert.notBefore.getUTCSeconds()).toBe(0);
    expect(opensslVerify(dir, ec.certificate.pem, pem(cert.der))).toContain(': OK');
    const stored = await db.store.findCertificate(ec.id, cert.serial);
    expect(stored!.id).toBe(cert.id);
  });

  it('request beats profile, profile null removes the CA CRL DP', async () => {
    const request = prepareSignRequestJson(
      { csr: parsedCsr, subject, extensions: [{ type: 'key_usage', critical: false, value: ['digitalSignature'] }], profile: 'short' },
      { ca: ec, policy: policyContextOf(ec, []), profiles },
    );
    const cert = await issueFromRequest({ store: db.store, keyBackends, ca: ec, request, profiles });
    const ku = cert.certificate.extensions.find((e) => e.type === 'key_usage')!;
    expect(ku).toEqual({ type: 'key_usage', critical: false, value: ['digital_signature'] });
    expect(cert.certificate.extensions.map((e) => e.type)).not.toContain('crl_distribution_points');
    expect(cert.certificate.signature_hash_algorithm).toBe('SHA-384');
    expect(openssl(['x509', '-noout', '-text'], pem(cert.der))).toContain('ecdsa-with-SHA384');
  });

  it('signs with EdDSA CAs without a hash', async () => {
    const request = prepareSignRequestJson({ csr: parsedCsr, subject }, { ca: ed, policy: policyContextOf(ed, []), profiles });
    const cert = await issueFromRequest({ store: db.store, keyBackends, ca: ed, request, profiles });
    expect(cert.certificate.signature_hash_algorithm).toBeNull();
    expect(opensslVerify(dir, ed.certificate.pem, pem(cert.der))).toContain(': OK');
  });

  it('a CA without its key fails with a clear error and stores nothing', async () => {
    const keyless = await importCa({ store: db.store, keyBackends, name: 'keyless', certificate: ec.der, key: null }).catch(
      (e: unknown) => e,
    );
    // ec's certificate is already a CA in this store: importing it again must fail (serial taken).
    expect(keyless).toBeInstanceOf(CaError);
    const other = tmpDir();
    const certPem = path.join(other, 'ca.pem');
    openssl(
      selfSignedP256({
        keyOut: path.join(other, 'k'),
        out: certPem,
        subject: '/CN=keyless',
        days: 30,
        extensions: ['basicConstraints=critical,CA:TRUE'],
      }),
    );
    const ca = await importCa({ store: db.store, keyBackends, name: 'keyless', certificate: fs.readFileSync(certPem), key: null });
    const request = prepareSignRequestJson(
      { csr: parsedCsr, subject, notAfter: new Date(Date.now() + 86_400_000).toISOString() },
      { ca, policy: policyContextOf(ca, []), profiles },
    );
    const before = (await db.store.listCertificates({ caId: ca.id, includeExpired: true })).length;
    await expect(issueFromRequest({ store: db.store, keyBackends, ca, request, profiles })).rejects.toMatchObject({ code: 'key' });
    expect((await db.store.listCertificates({ caId: ca.id, includeExpired: true })).length).toBe(before);
    fs.rmSync(other, { recursive: true, force: true });
  });
});

describe('resign (API) and revoke', () => {
  it('prepareResignRequest copies the original (minus CA-supplied extensions); imported certs have no CSR', async () => {
    const request = prepareSignRequestJson(
      { csr: parsedCsr, subject, extensions: [{ type: 'tls_feature', value: ['OCSPMustStaple'] }], profile: 'custom-unknown' },
      { ca: ec, policy: policyContextOf(ec, []), profiles, allowUnknownProfile: true },
    );
    const original = await issueFromRequest({ store: db.store, keyBackends, ca: ec, request, profiles });
    const resign = prepareResignRequest({ ca: ec, policy: policyContextOf(ec, []), cert: original, profiles });
    expect(resign.profile).toBe('custom-unknown');
    expect(resign.subject).toEqual(original.certificate.subject);
    expect(resign.algorithm).toBe('SHA-512');
    expect(resign.extensions.map((e) => e.type)).toEqual(['tls_feature']);
    const renewed = await issueFromRequest({ store: db.store, keyBackends, ca: ec, request: resign, profiles });
    expect(renewed.serial).not.toBe(original.serial);

    const imported = await importCert(db.store, ec, renewed.certificate.pem).catch((e: unknown) => e);
    expect(imported).toBeInstanceOf(CaError); // same serial under the same CA
  });

  it('revokeCert accepts camelCase and snake_case (D13), rejects future compromise', async () => {
    const mk = async () =>
      issueFromRequest({
        store: db.store,
        keyBackends,
        ca: ec,
        request: prepareSignRequestJson({ csr: parsedCsr, subject }, { ca: ec, policy: policyContextOf(ec, []), profiles }),
        profiles,
      });
    const a = await revokeCert(db.store, await mk(), { reason: 'cACompromise' });
    expect(a).toMatchObject({ revoked: true, revokedReason: 'ca_compromise', compromised: null });
    const b = await revokeCert(db.store, await mk(), { reason: 'privilege_withdrawn', compromised: '2024-05-01T12:00:00Z' });
    expect(b.revokedReason).toBe('privilege_withdrawn');
    expect(certificateToJson(b).compromised).toBe('2024-05-01T12:00:00Z');
    const c = await mk();
    await expect(revokeCert(db.store, c, { reason: 'nope', compromised: '2999-01-01T00:00:00Z' })).rejects.toMatchObject({
      code: 'validation',
      issues: [
        { loc: ['reason'], msg: 'nope: Unknown revocation reason.', type: 'enum' },
        { loc: ['compromised'], msg: '2999-01-01T00:00:00Z: Timestamp must be in the past.', type: 'value_error' },
      ],
    });
    expect((await db.store.findCertificate(ec.id, c.serial))!.revoked).toBe(false);
  });
});

describe('serialisers and users', () => {
  it('caToJson and certificateToJson use the exact key order of models.md §8/§9', async () => {
    expect(Object.keys(caToJson(ec))).toEqual([
      'id',
      'created',
      'updated',
      'revoked',
      'revoked_date',
      'revoked_reason',
      'compromised',
      'certificate',
      'fingerprints',
      'name',
      'enabled',
      'parent',
      'key_backend_alias',
      'sign_authority_information_access',
      'sign_certificate_policies',
      'sign_crl_distribution_points',
      'sign_issuer_alternative_name',
      'caa_identity',
      'website',
      'terms_of_service',
      'ocsp_key_backend_alias',
      'ocsp_responder_key_validity',
      'ocsp_response_validity',
      'acme_enabled',
      'acme_registration',
      'acme_profile',
      'acme_requires_contact',
      'api_enabled',
    ]);
    const json = caToJson(ec);
    expect(Object.keys(json.certificate)).toEqual([
      'serial',
      'version',
      'not_valid_before',
      'not_valid_after',
      'issuer',
      'subject',
      'signature_hash_algorithm',
      'signature_algorithm_oid',
      'public_key_algorithm_oid',
      'signature_algorithm_parameters',
      'extensions',
      'pem',
    ]);
    expect(Object.keys(json.fingerprints)).toEqual([
      'SHA-224',
      'SHA-256',
      'SHA-384',
      'SHA-512',
      'SHA3/224',
      'SHA3/256',
      'SHA3/384',
      'SHA3/512',
    ]);
    expect(Object.keys(json.sign_authority_information_access!)).toEqual(['type', 'critical', 'value']);
    expect(json.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
    expect(json).not.toHaveProperty('key_backend_options');
    const [cert] = await db.store.listCertificates({ caId: ec.id });
    expect(Object.keys(certificateToJson(cert))).toEqual([
      'id',
      'created',
      'updated',
      'revoked',
      'revoked_date',
      'revoked_reason',
      'compromised',
      'certificate',
      'fingerprints',
      'watchers',
      'ca',
      'csr',
      'profile',
      'autogenerated',
    ]);
  });

  it('orderToJson: serial, created, updated, slug, status, then error (null unless failed)', () => {
    const base = {
      id: 1,
      created: new Date('2026-01-02T03:04:05.678Z'),
      updated: new Date('2026-01-02T03:04:06Z'),
      slug: 'abcDEF123456',
      caId: 1,
      userId: 1,
      certificateId: null,
      request: {} as OrderRecord['request'],
      leaseOwner: null,
      leaseExpires: null,
    };
    expect(JSON.stringify(orderToJson({ ...base, status: 'pending', certificateSerial: null, error: null }))).toBe(
      '{"serial":null,"created":"2026-01-02T03:04:05.678Z","updated":"2026-01-02T03:04:06Z","slug":"abcDEF123456","status":"pending","error":null}',
    );
    expect(orderToJson({ ...base, status: 'failed', certificateSerial: null, error: 'Could not sign certificate.' }).error).toBe(
      'Could not sign certificate.',
    );
  });

  it('createApiUser: all permissions by default, bcrypt cost configurable', async () => {
    const all = await createApiUser(db.store, 'u1', 'pw', undefined, { bcryptCost: 4 });
    expect(all.permissions).toHaveLength(5);
    expect(bcrypt.getRounds(all.passwordHash)).toBe(4);
    const some = await createApiUser(db.store, 'u2', 'pw', { signCertificate: false, viewCertificate: false }, { bcryptCost: 5 });
    expect([...some.permissions].sort()).toEqual(['change_certificateauthority', 'revoke_certificate', 'view_certificateauthority']);
    expect(bcrypt.getRounds(some.passwordHash)).toBe(5);
    const dflt = await createApiUser(db.store, 'u3', 'pw', {});
    expect(bcrypt.getRounds(dflt.passwordHash)).toBe(10);
    await expect(createApiUser(db.store, 'u1', 'pw')).rejects.toBeInstanceOf(CaError);
  });
});
