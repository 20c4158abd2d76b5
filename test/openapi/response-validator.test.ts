/**
 * The test-side response validator (test/helpers/response-validator.ts) catches what it is there to
 * catch: a body that breaks its schema, a field the schema does not describe, an undeclared status or
 * header; and it is wired into `buildApp`, so responses of an app built there are checked.
 */
import { createHash } from 'crypto';
import request from 'supertest';
import { loadCorpusEntry, pemToDer } from '../helpers/corpus';
import { buildApp, memoryUserStore } from '../helpers/http';
import { checkResponse, recordResponse, responseStats, takeViolations, type ResponseSample } from '../helpers/response-validator';

const colonHex = (buf: Buffer): string => buf.toString('hex').toUpperCase().match(/../g)!.join(':');

/** A CA record assembled by hand from the corpus (independent of our serialiser). */
function handMadeCa(): Record<string, unknown> {
  const child = loadCorpusEntry('child');
  const root = loadCorpusEntry('root');
  const der = pemToDer(child.pem);
  const fp = (alg: string): string => colonHex(createHash(alg).update(der).digest());
  return {
    id: 2,
    created: '2024-05-01T10:00:00Z',
    updated: '2024-05-01T10:00:00Z',
    revoked: false,
    revoked_date: null,
    revoked_reason: '',
    compromised: null,
    certificate: {
      serial: child.facts.serial,
      version: 2,
      not_valid_before: '2024-05-01T10:00:00Z',
      not_valid_after: '2034-05-01T10:00:00Z',
      issuer: root.facts.subject,
      subject: child.facts.subject,
      signature_hash_algorithm: 'SHA-256',
      signature_algorithm_oid: '1.2.840.113549.1.1.11',
      public_key_algorithm_oid: '1.2.840.113549.1.1.1',
      signature_algorithm_parameters: { name: 'EMSA-PKCS1-v1_5' },
      extensions: child.facts.extensions,
      pem: child.pem,
    },
    fingerprints: {
      'SHA-224': fp('sha224'),
      'SHA-256': fp('sha256'),
      'SHA-384': fp('sha384'),
      'SHA-512': fp('sha512'),
      'SHA3/224': fp('sha3-224'),
      'SHA3/256': fp('sha3-256'),
      'SHA3/384': fp('sha3-384'),
      'SHA3/512': fp('sha3-512'),
    },
    name: 'child',
    enabled: true,
    parent: 1,
    key_backend_alias: 'default',
    sign_authority_information_access: null,
    sign_certificate_policies: null,
    sign_crl_distribution_points: null,
    sign_issuer_alternative_name: null,
    caa_identity: '',
    website: '',
    terms_of_service: '',
    ocsp_key_backend_alias: 'default',
    ocsp_responder_key_validity: 3,
    ocsp_response_validity: 86400,
    acme_enabled: false,
    acme_registration: true,
    acme_profile: 'webserver',
    acme_requires_contact: true,
    api_enabled: true,
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';
const sample = (path: string, status: number, body: unknown, method = 'GET'): ResponseSample => ({
  method,
  path,
  status,
  contentType: JSON_TYPE,
  body: JSON.stringify(body),
});

test('a complete CA record validates; one without `name` is a violation naming the field', () => {
  const ca = handMadeCa();
  expect(checkResponse(sample('/ca/AB/', 200, ca))).toEqual({
    kind: 'validated',
    operation: 'service_api_endpoints_view_certificate_authority',
  });
  const { name: _name, ...withoutName } = ca;
  const verdict = checkResponse(sample('/ca/AB/', 200, withoutName));
  expect(verdict.kind).toBe('violation');
  expect(verdict.kind === 'violation' && verdict.message).toMatch(/required property 'name'/);
  // In a list (the array schema of list_certificate_authorities) too.
  const list = checkResponse(sample('/ca/', 200, [ca, withoutName]));
  expect(list.kind === 'violation' && list.message).toMatch(/\/1 must have required property 'name'/);
});

test('a field the document does not describe is a violation', () => {
  const verdict = checkResponse(sample('/ca/AB/', 200, { ...handMadeCa(), secret_key: 'x' }));
  expect(verdict.kind === 'violation' && verdict.message).toMatch(/unevaluated properties.*secret_key/);
});

test('path templates select the operation; an undeclared status or header is a violation', () => {
  const notFound = { detail: 'Not Found' };
  expect(checkResponse(sample('/ca/0A:bc/certs/FF/', 404, notFound))).toEqual({
    kind: 'validated',
    operation: 'service_api_endpoints_view_certificate',
  });
  expect(checkResponse(sample('/ca/AB/certs/FF/revoke/', 404, notFound, 'POST'))).toEqual({
    kind: 'validated',
    operation: 'service_api_endpoints_revoke_certificate',
  });
  const teapot = checkResponse(sample('/ca/AB/certs/FF/', 418, notFound));
  expect(teapot.kind === 'violation' && teapot.message).toMatch(/status 418 is not declared for service_api_endpoints_view_certificate/);
  const linked = checkResponse({ ...sample('/profiles/', 200, []), headers: { link: '</next>; rel="next"' } });
  expect(linked.kind === 'violation' && linked.message).toMatch(/header\(s\) link not declared/);
  // A 422 must have the ValidationError shape, not Error's.
  expect(checkResponse(sample('/ca/AB/sign/', 422, { detail: 'bad' }, 'POST')).kind).toBe('violation');
});

test('out of scope: public documents, non-JSON bodies, requests no operation describes', () => {
  expect(checkResponse(sample('/openapi.json', 200, {})).kind).toBe('skipped');
  expect(checkResponse({ ...sample('/ca/', 200, 'x'), contentType: 'text/html' }).kind).toBe('skipped');
  expect(checkResponse(sample('/ca/AB/', 405, { detail: 'Method Not Allowed' }, 'DELETE')).kind).toBe('skipped');
  expect(checkResponse(sample('/nothing/', 404, { detail: 'Not Found' })).kind).toBe('skipped');
});

test('recorded violations are handed to the running test (what the afterEach throws)', () => {
  recordResponse(sample('/ca/AB/', 200, { id: 1 }));
  const taken = takeViolations();
  expect(taken).toHaveLength(1);
  expect(taken[0]).toMatch(/GET \/ca\/AB\/ → 200/);
  expect(takeViolations()).toEqual([]);
});

test('buildApp checks the responses of its app', async () => {
  const t = buildApp({ enableRestApi: true, store: memoryUserStore() });
  try {
    const before = responseStats.validated;
    const res = await request(t.app).get('/django_ca/api/ca/'); // no credentials: the router's 401
    expect(res.status).toBe(401);
    expect(responseStats.validated).toBe(before + 1);
    await request(t.app).get('/elsewhere/'); // the host app's: not counted
    expect(responseStats.validated).toBe(before + 1);
  } finally {
    await t.close();
  }
});
