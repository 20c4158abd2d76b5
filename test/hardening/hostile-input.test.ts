/**
 * Hostile input seen answered with 500 or with the wrong error (issue 15, "What was seen"): NUL
 * characters reaching PostgreSQL, JSON nested thousands of levels deep, semantic extension errors
 * whose `loc` lacked the union tag (reference 422 shape: docs/COMPATIBILITY.md §1.4), and URL
 * fields over 200 characters reported as a schema error instead of a model error (400).
 */
import { execFileSync } from 'child_process';
import express from 'express';
import request from 'supertest';
import { TABLES } from '../../adapters/store/knex/tables';
import { MAX_FULLY_REPORTED_VALUES } from '../../lib/api/validation';
import { API, opensslCsr, setupApi, waitForOrder, type ApiFixture } from '../api/fixture';
import { buildApp } from '../helpers/http';

let f: ApiFixture;
let csr: string;
const subject = [{ oid: 'CN', value: 'hostile.example.com' }];

beforeAll(async () => {
  f = await setupApi();
  csr = opensslCsr('EC').csr;
});
afterAll(() => f.close());

const put = (body: string) =>
  request(f.app).put(`${API}/ca/${f.ca.serial}/`).set(f.auth('alice')).set('Content-Type', 'application/json').send(body);
const sign = (body: unknown) =>
  request(f.app)
    .post(`${API}/ca/${f.ca.serial}/sign/`)
    .set(f.auth('alice'))
    .set('Content-Type', 'application/json')
    .send(typeof body === 'string' ? body : JSON.stringify(body));

/** Every row of the tables a rejected request must not touch, as one comparable value. */
async function snapshot(): Promise<string> {
  const rows = await Promise.all([TABLES.cas, TABLES.orders, TABLES.certificates].map((t) => f.db.knex(t).select('*').orderBy('id')));
  return JSON.stringify(rows);
}

/** An array (or object, `{"a": ...}`) nested `depth` levels around `inner`, as JSON text. */
const nestedArray = (depth: number, inner = '"x"') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('NUL characters are invalid input (422) and reach no query', () => {
  test('in a query value: GET certs/?profile=%00', async () => {
    const res = await request(f.app).get(`${API}/ca/${f.ca.serial}/certs/?profile=%00`).set(f.auth('alice'));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['query', 'profile'],
        msg: 'Value error, Null characters are not allowed.',
        ctx: { error: 'Null characters are not allowed.' },
      },
    ]);
  });

  test('in a boolean query value, and in any repetition of a parameter', async () => {
    for (const query of ['?expired=%00', '?expired=%00&expired=true']) {
      const res = await request(f.app).get(`${API}/ca/${query}`).set(f.auth('alice'));
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc])).toEqual([
        ['value_error', ['query', 'expired']],
      ]);
    }
  });

  test('in a path: a profile name or a serial with a NUL is a 422 at ["path", name], before any lookup', async () => {
    const before = await snapshot();
    for (const [path, param] of [
      ['/profiles/web%00server/', 'name'],
      ['/profiles/%00/', 'name'],
      [`/ca/${f.ca.serial}%00/`, 'serial'],
      [`/ca/${f.ca.serial}/certs/AB%00CD/`, 'certificate_serial'],
    ] as const) {
      const res = await request(f.app).get(`${API}${path}`).set(f.auth('alice'));
      expect([path, res.status]).toEqual([path, 422]);
      expect(res.body.detail.map((d: { type: string; loc: unknown[]; msg: string }) => [d.type, d.loc, d.msg])).toEqual([
        ['value_error', ['path', param], 'Value error, Null characters are not allowed.'],
      ]);
    }
    // Authentication still comes first; the revoke endpoint refuses it too, and nothing is written.
    expect((await request(f.app).get(`${API}/profiles/%00/`)).status).toBe(401);
    const revoke = await request(f.app).post(`${API}/ca/${f.ca.serial}/certs/AB%00/revoke/`).set(f.auth('alice')).send({});
    expect(revoke.status).toBe(422);
    expect(await snapshot()).toBe(before);
  });

  test('in a body value: PUT caa_identity "\\u0000", nothing saved', async () => {
    const before = await snapshot();
    const res = await put('{"caa_identity": "\\u0000"}');
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { type: string; loc: unknown[] }) => [d.type, d.loc])).toEqual([
      ['value_error', ['body', 'data', 'caa_identity']],
    ]);
    expect(await snapshot()).toBe(before);
  });

  test('deep in a body (extension values, subject, keys of ignored fields), every one reported', async () => {
    const before = await snapshot();
    const res = await sign({
      csr,
      subject: [{ oid: 'CN', value: 'a\u0000b' }],
      extensions: [{ type: 'subject_alternative_name', value: [{ type: 'DNS', value: 'x\u0000.example.com' }] }],
      ['ignored\u0000']: 1,
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'data', 'subject', 0, 'value'],
      ['body', 'data', 'extensions', 0, 'subject_alternative_name', 'value', 0, 'value'],
      ['body', 'data', 'ignored\u0000'],
    ]);
    expect(await snapshot()).toBe(before);
  });
});

describe('deeply nested JSON is refused before any walker runs', () => {
  test.each([
    ['csr as an array nested 5000 levels', () => `{"csr": ${nestedArray(5000)}, "subject": [{"oid": "CN", "value": "x"}]}`],
    ['csr as an array nested 200000 levels', () => `{"csr": ${nestedArray(200_000)}, "subject": []}`],
    ['an ignored key holding a deep object', () => `{"csr": "x", "subject": [], "other": ${nestedObject(5000)}}`],
  ])('sign: %s → 400', async (_name, body) => {
    const before = await snapshot();
    const res = await sign(body());
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^Cannot parse request body: JSON nested deeper than \d+ levels\.$/);
    expect(await snapshot()).toBe(before);
  });

  test('update: sign_certificate_policies as a deeply nested object → 400, nothing saved', async () => {
    const before = await snapshot();
    const res = await put(`{"sign_certificate_policies": ${nestedObject(5000)}}`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/nested deeper than/);
    expect(await snapshot()).toBe(before);
  });

  test('the deepest legitimate request still passes the limit', async () => {
    // Certificate policies with a user notice: the most deeply nested value of the API (8 levels).
    const res = await sign({
      csr,
      subject,
      extensions: [
        {
          type: 'certificate_policies',
          value: [
            {
              policy_identifier: '1.2.3',
              policy_qualifiers: [{ notice_reference: { organization: 'Org', notice_numbers: [1, 2] }, explicit_text: 'x' }],
            },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
  });

  test('brackets inside strings (also after escaped quotes) are not nesting', async () => {
    const text = `{"ignored": "\\"${'['.repeat(500)}\\\\", "other": ["${'{'.repeat(500)}"], "caa_identity": "brackets"}`;
    const res = await put(text);
    expect(res.status).toBe(200);
    expect(res.body.caa_identity).toBe('brackets');
  });

  test('a body already parsed by the host app is held to the same limit', async () => {
    // Deep values that a host's express.json() produced reach the router as objects.
    const deep = `{"csr": ${nestedArray(5000)}, "subject": []}`;
    const inner = buildApp({ enableRestApi: true, store: f.store, keyBackends: { default: f.keyBackend } });
    const app = express();
    app.use(express.json({ limit: '5mb' }));
    app.use(inner.app);
    try {
      const res = await request(app)
        .post(`${API}/ca/${f.ca.serial}/sign/`)
        .set(f.auth('alice'))
        .set('Content-Type', 'application/json')
        .send(deep);
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(/nested deeper than/);
    } finally {
      await inner.close();
    }
  });
});

describe('semantic errors inside an extension carry its type tag in loc', () => {
  const ext = (e: Record<string, unknown>) => ({ csr, subject, extensions: [e] });
  test.each([
    [
      'SAN with a bad IP',
      { type: 'subject_alternative_name', value: [{ type: 'IP', value: '300.1.1.1' }] },
      ['subject_alternative_name', 'value', 0],
    ],
    [
      'SAN with a bad email',
      { type: 'subject_alternative_name', value: [{ type: 'email', value: 'x' }] },
      ['subject_alternative_name', 'value', 0],
    ],
    [
      'SAN with a scheme-less URI',
      { type: 'subject_alternative_name', value: [{ type: 'URI', value: 'example.com' }] },
      ['subject_alternative_name', 'value', 0],
    ],
    [
      'a CRL distribution point with both names',
      {
        type: 'crl_distribution_points',
        value: [{ full_name: [{ type: 'URI', value: 'http://crl.example.com' }], relative_name: [{ oid: 'CN', value: 'x' }] }],
      },
      ['crl_distribution_points', 'value', 0],
    ],
    [
      'a CRL distribution point with neither name',
      { type: 'crl_distribution_points', value: [{}] },
      ['crl_distribution_points', 'value', 0],
    ],
    [
      'key usage duplicated through an alias',
      { type: 'key_usage', value: ['digital_signature', 'digitalSignature'] },
      ['key_usage', 'value'],
    ],
    [
      'AIA with a ca_repository access method',
      {
        type: 'authority_information_access',
        value: [{ access_method: 'ca_repository', access_location: { type: 'URI', value: 'http://x.example.com' } }],
      },
      ['authority_information_access'],
    ],
    [
      'ms_certificate_template without critical',
      { type: 'ms_certificate_template', value: { template_id: '1.2.3' } },
      ['ms_certificate_template', 'critical'],
    ],
    ['precert_poison not critical', { type: 'precert_poison', critical: false }, ['precert_poison', 'critical']],
  ])('%s', async (_name, extension, tail) => {
    const before = await snapshot();
    const res = await sign(ext(extension));
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['body', 'data', 'extensions', 0, ...tail]]);
    expect(await snapshot()).toBe(before);
  });

  test('the reference messages stay as they were', async () => {
    const res = await sign(ext({ type: 'subject_alternative_name', value: [{ type: 'IP', value: '300.1.1.1' }] }));
    expect(res.body.detail).toEqual([
      {
        type: 'value_error',
        loc: ['body', 'data', 'extensions', 0, 'subject_alternative_name', 'value', 0],
        msg: 'Value error, 300.1.1.1: Could not parse IP address',
        ctx: { error: '300.1.1.1: Could not parse IP address' },
      },
    ]);
  });

  test('a duplicate extension and a bad tag are still reported at the index', async () => {
    const res = await sign({ csr, subject, extensions: [{ type: 'ocsp_no_check' }, { type: 'ocsp_no_check' }] });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['body', 'data', 'extensions', 1]]);
  });
});

describe('found by the campaign (test/hardening/campaign.test.ts)', () => {
  test('an OID arc beyond 256 bits is refused up front (it failed the order when signing)', async () => {
    const before = await snapshot();
    const tooLarge = `1.2.${1n << 256n}`;
    const res = await sign({ csr, subject, extensions: [{ type: 'extended_key_usage', value: [tooLarge] }] });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[]; msg: string }) => [d.loc, d.msg])).toEqual([
      [['body', 'data', 'extensions', 0, 'extended_key_usage', 'value', 0], `Value error, ${tooLarge}: Invalid object identifier`],
    ]);
    expect(await snapshot()).toBe(before);
  });

  test('arcs beyond 32 bits (a UUID OID, the largest encodable arc) sign, and openssl and the API read them back', async () => {
    const uuidOid = '2.25.329800735698586629295641978511506172918';
    const largest = `1.2.${(1n << 256n) - 1n}`;
    const res = await sign({
      csr,
      subject,
      extensions: [
        { type: 'extended_key_usage', value: [largest, '2.4294967296'] },
        { type: 'certificate_policies', value: [{ policy_identifier: uuidOid }] },
      ],
    });
    expect(res.status).toBe(200);
    const done = await waitForOrder(f.app, f.ca.serial, res.body.slug, f.auth('alice'));
    expect([done.status, done.error]).toEqual(['issued', null]);
    const view = await request(f.app).get(`${API}/ca/${f.ca.serial}/certs/${done.serial}/`).set(f.auth('alice'));
    const byType = (type: string) => view.body.certificate.extensions.find((e: { type: string }) => e.type === type)?.value;
    expect(byType('extended_key_usage')).toEqual([largest, '2.4294967296']);
    expect(byType('certificate_policies')).toEqual([{ policy_identifier: uuidOid, policy_qualifiers: null }]);
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: view.body.certificate.pem, encoding: 'utf8' });
    expect(text).toContain(`Policy: ${uuidOid}`);
    // `x509 -text` cuts OID text at 80 characters; asn1parse prints the whole arc (the EKU's OCTET STRING parsed).
    const pem = view.body.certificate.pem as string;
    const outline = execFileSync('openssl', ['asn1parse', '-inform', 'PEM'], { input: pem, encoding: 'utf8' }).split('\n');
    const ekuLine = outline.findIndex((line) => line.includes('X509v3 Extended Key Usage'));
    const offset = outline
      .slice(ekuLine)
      .find((line) => line.includes('OCTET STRING'))!
      .trim()
      .split(':')[0];
    const octets = execFileSync('openssl', ['asn1parse', '-inform', 'PEM', '-strparse', offset], { input: pem });
    expect(octets.toString()).toContain(`:${largest}`);
  });

  describe('an invalid body with many failing items (a sign request went unanswered for 20 s)', () => {
    // A policy qualifier is a string or a notice object: a number fails both branches, two errors each.
    const signWithQualifiers = (qualifiers: unknown[]) =>
      sign({
        csr,
        subject,
        extensions: [{ type: 'certificate_policies', value: [{ policy_identifier: '1.2.3', policy_qualifiers: qualifiers }] }],
      });
    const qualifierLocs = (detail: { loc: unknown[] }[]) => new Set(detail.map((d) => d.loc[d.loc.length - 1]));

    test(`up to ${MAX_FULLY_REPORTED_VALUES} values, every error is reported`, async () => {
      const n = MAX_FULLY_REPORTED_VALUES - 100;
      const res = await signWithQualifiers(Array.from({ length: n }, (_, i) => i));
      expect(res.status).toBe(422);
      expect(res.body.detail).toHaveLength(2 * n);
      expect(qualifierLocs(res.body.detail).size).toBe(n);
    });

    test('a body near the size limit full of failing items is answered with its first error, nothing saved', async () => {
      const before = await snapshot();
      // ~2.4 MB: 1.2 million items; reporting each of them made ajv copy its error list per item.
      const res = await signWithQualifiers(new Array(1_200_000).fill(0));
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { type: string }) => d.type)).toEqual(['string_type', 'dict_type']);
      expect([...qualifierLocs(res.body.detail)]).toEqual([0]);
      expect(await snapshot()).toBe(before);
    });
  });

  test.each([
    ['list certificates', (s: string) => `/ca/${s}/certs/?not_after_before=0000-01-01T00:00:00Z`, ['query', 'not_after_before']],
    [
      'list certificates, year 1 with a positive offset',
      (s: string) => `/ca/${s}/certs/?not_after_after=0001-01-01T00:00:00%2B01:00`,
      ['query', 'not_after_after'],
    ],
  ])('a date-time before year 1 is a 422 (it failed in the query): %s', async (_name, path, loc) => {
    const res = await request(f.app)
      .get(`${API}${path(f.ca.serial)}`)
      .set(f.auth('alice'));
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([loc]);
  });

  test('revoke: compromised before year 1 is a 422, nothing saved', async () => {
    const before = await snapshot();
    const [cert] = await f.db.knex(TABLES.certificates).select('serial').limit(1);
    const serial = cert ? (cert.serial as string) : 'AB';
    const res = await request(f.app)
      .post(`${API}/ca/${f.ca.serial}/certs/${serial}/revoke/`)
      .set(f.auth('alice'))
      .send({ compromised: '0000-06-01T00:00:00Z' });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([['body', 'revocation', 'compromised']]);
    expect(await snapshot()).toBe(before);
  });
});

describe('PUT /ca/: website and terms_of_service over 200 characters are model errors', () => {
  test.each(['website', 'terms_of_service'])('%s → 400 in the original wording, nothing saved', async (field) => {
    const before = await snapshot();
    const url = `https://example.com/${'a'.repeat(190)}`; // 210 characters
    const res = await put(JSON.stringify({ [field]: url, ocsp_response_validity: 7200 }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: `{'${field}': ['Ensure this value has at most 200 characters (it has ${url.length}).']}` });
    expect(await snapshot()).toBe(before);
  });

  test('both, with another model error, in model order', async () => {
    const long = `http://e.com/${'b'.repeat(300)}`;
    const res = await put(JSON.stringify({ terms_of_service: long, website: long, name: '' }));
    expect(res.status).toBe(400);
    const n = long.length;
    expect(res.body.detail).toBe(
      `{'name': ['This field cannot be blank.'], 'website': ['Ensure this value has at most 200 characters (it has ${n}).'], 'terms_of_service': ['Ensure this value has at most 200 characters (it has ${n}).']}`,
    );
  });
});
