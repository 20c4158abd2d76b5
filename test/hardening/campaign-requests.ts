/**
 * Requests of the hostile-input campaign: for every endpoint of the route table (lib/api/routes.ts),
 * valid, almost-valid and hostile requests — paths with bogus serials, slugs, profile names and
 * traversal; query strings and bodies from the schemas, mutated, or raw bytes no JSON parser should
 * accept (invalid UTF-8, duplicate keys, deep nesting); odd methods and headers.
 */
import fc from 'fast-check';
import { API } from '../api/fixture';
import { basicAuth } from '../helpers/http';
import { fromSchema, mutate, plausibleString } from './campaign-schema';

export interface CampaignContext {
  caSerial: string;
  /** A CA that exists but is not API-enabled. */
  rootSerial: string;
  certSerials: string[];
  slugs: string[];
  /** Real CSRs (openssl): EC, RSA, Ed25519. */
  csrs: string[];
  /** A CSR whose signature does not verify, one with a key of another CSR (mismatched), DER without PEM. */
  badCsrs: string[];
  password: string;
}

export interface CampaignRequest {
  method: string;
  /** Absolute path with query, as sent. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked, in two pieces. */
  chunked?: boolean;
  /** What kind of request this is, for the report. */
  kind: string;
}

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v) ?? 'null', 'utf8');

/** Percent-encoding of the UTF-8 bytes (a lone surrogate, which a URL cannot carry, goes as U+FFFD). */
const pct = (s: string): string => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

// ---------------------------------------------------------------------------------------------------
// Path parameters

function serialArb(ctx: CampaignContext, own: string[]): fc.Arbitrary<string> {
  const hex = fc.stringMatching(/^[0-9A-F]{1,40}$/);
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...own) },
    { weight: 2, arbitrary: fc.constantFrom(...own).map((s) => s.toLowerCase()) },
    { weight: 2, arbitrary: fc.constantFrom(...own).map((s) => `000${s.replace(/(..)(?=.)/g, '$1:')}`) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        hex,
        fc.constantFrom('0', '00', ':', '::::', ctx.rootSerial, 'F'.repeat(5000), 'G', 'ZZ', '-1', '%41', 'AB%00', 'AB%2F', '%2e%2e'),
      ),
    },
  );
}

const slugArb = (ctx: CampaignContext) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...ctx.slugs) },
    {
      weight: 3,
      arbitrary: fc.oneof(fc.stringMatching(/^[a-zA-Z0-9]{1,30}$/), fc.constantFrom('a'.repeat(3000), 'a-b', 'a_b', '%00', '..', '%2F')),
    },
  );

const profileNameArb = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('webserver', 'client', 'server', 'enduser', 'ocsp') },
  { weight: 3, arbitrary: fc.string({ maxLength: 20 }).map((s) => pct(s) || 'x') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '..',
      '%2e%2e',
      '..%2F..%2Fetc',
      '%00',
      '%ZZ',
      '%C0%80',
      '%ED%A0%80',
      '%FF',
      'a'.repeat(4000),
      '__proto__',
      'constructor',
    ),
  },
);

// ---------------------------------------------------------------------------------------------------
// Query strings

/** Encode a query object; values that are not strings are written as JSON text or repeated. */
function encodeQuery(q: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(q)) {
    const values = Array.isArray(v) && v.length < 5 ? v : [v];
    for (const one of values) parts.push(`${pct(k)}=${pct(typeof one === 'string' ? one : (JSON.stringify(one) ?? ''))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function queryArb(schema: string | null): fc.Arbitrary<string> {
  const valid = schema ? fromSchema(schema) : fc.constant({});
  return fc.oneof(
    { weight: 5, arbitrary: valid.map((q) => encodeQuery(q as Record<string, unknown>)) },
    {
      weight: 3,
      arbitrary: mutate(valid).map((q) => (typeof q === 'object' && q !== null ? encodeQuery(q as Record<string, unknown>) : '')),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '?profile=%00',
        '?expired=%00',
        '?subject=%ED%A0%80',
        '?san=%FF%FE',
        '?serial=%C0%80',
        '?limit=99999999999999999999999',
        '?limit=-0',
        '?limit=1e3',
        '?cursor=%00',
        '?cursor=AAAA',
        '?cursor=' + 'A'.repeat(5000),
        '?expired[]=true',
        '?expired=true&expired=maybe',
        '?not_after_before=0000-01-01T00:00:00Z',
        '?not_after_after=%2B275760-09-13T00:00:00Z',
        '?%00=1',
        '?=&&&=',
        '?a=' + 'x'.repeat(8000),
      ),
    },
  );
}

// ---------------------------------------------------------------------------------------------------
// Bodies

/** Valid configurable extensions, one per type (values the engine accepts). */
const VALID_EXTENSIONS: unknown[] = [
  { type: 'admissions', value: { admissions: [{ profession_infos: [{ profession_items: ['Notar'] }] }] } },
  {
    type: 'authority_information_access',
    value: [{ access_method: 'ocsp', access_location: { type: 'URI', value: 'http://ocsp.example.com' } }],
  },
  { type: 'certificate_policies', value: [{ policy_identifier: '1.2.3', policy_qualifiers: ['https://cps.example.com'] }] },
  { type: 'crl_distribution_points', value: [{ full_name: [{ type: 'URI', value: 'http://crl.example.com' }] }] },
  { type: 'extended_key_usage', value: ['serverAuth', '1.2.3.4'] },
  { type: 'freshest_crl', value: [{ full_name: [{ type: 'URI', value: 'http://delta.example.com' }] }] },
  { type: 'issuer_alternative_name', value: [{ type: 'URI', value: 'http://ian.example.com' }] },
  { type: 'key_usage', critical: true, value: ['digital_signature', 'key_agreement'] },
  { type: 'ms_certificate_template', critical: false, value: { template_id: '1.2.3', major_version: 1, minor_version: 2 } },
  { type: 'ocsp_no_check' },
  { type: 'precert_poison', critical: true },
  { type: 'private_key_usage_period', value: { not_before: '2030-01-01T00:00:00Z', not_after: '2031-01-01T00:00:00Z' } },
  {
    type: 'subject_alternative_name',
    value: [
      { type: 'DNS', value: 'campaign.example.com' },
      { type: 'IP', value: '192.0.2.7' },
      { type: 'email', value: 'a@example.com' },
      { type: 'dirName', value: [{ oid: 'CN', value: 'dir' }] },
      { type: 'otherName', value: { oid: '1.3.6.1.4.1.311.20.2.3', type: 'UTF8String', value: 'upn@example.com' } },
    ],
  },
  { type: 'tls_feature', value: ['status_request'] },
];

function signBody(ctx: CampaignContext): fc.Arbitrary<unknown> {
  const csr = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...ctx.csrs) }, { weight: 2, arbitrary: fc.constantFrom(...ctx.badCsrs) });
  const subject = fc.oneof(
    fc.constant([{ oid: 'CN', value: 'campaign.example.com' }]),
    fc.constant([
      { oid: 'C', value: 'AT' },
      { oid: 'O', value: 'Org' },
      { oid: '2.5.4.3', value: 'x.example.com' },
    ]),
    fromSchema('Name'),
  );
  const extensions = fc.oneof(
    fc.subarray(VALID_EXTENSIONS, { maxLength: 4 }).map((l) => structuredClone(l)),
    fc.array(fromSchema('ConfigurableExtension'), { maxLength: 3 }),
  );
  const handBuilt = fc.record(
    {
      csr,
      subject,
      extensions,
      profile: fc.constantFrom('webserver', 'client', 'server', 'enduser', 'ocsp'),
      algorithm: fc.constantFrom('SHA-256', 'SHA-384', null),
      not_after: fc.constantFrom(new Date(Date.now() + 20 * 86_400_000).toISOString(), null),
      autogenerated: fc.boolean(),
    },
    { requiredKeys: ['csr', 'subject'] },
  );
  const fromSchemaWithCsr = fc.tuple(fromSchema('SignCertificate'), csr).map(([b, c]) => ({ ...(b as object), csr: c }));
  return fc.oneof(
    { weight: 4, arbitrary: handBuilt },
    { weight: 2, arbitrary: fromSchemaWithCsr },
    { weight: 4, arbitrary: mutate(handBuilt) },
  );
}

function updateBody(): fc.Arbitrary<unknown> {
  const valid = fromSchema('CertificateAuthorityUpdate').map((b) => {
    // Keep the CA usable for the rest of the run: no renaming onto a fixed name, no clearing the name.
    const body = b as Record<string, unknown>;
    if ('name' in body) body.name = typeof body.name === 'string' && body.name !== '' ? `ca-${body.name}`.slice(0, 60) : body.name;
    return body;
  });
  // Hand-built: values the model rules accept too, so that updates are also saved (and then mutated).
  const handBuilt = fc.record(
    {
      caa_identity: fc.constantFrom('', 'ca.example.com'),
      website: fc.constantFrom('', 'https://ca.example.com', 'http://ca.example.com/about'),
      terms_of_service: fc.constantFrom('', 'https://ca.example.com/tos'),
      ocsp_response_validity: fc.integer({ min: 600, max: 2 ** 31 - 1 }),
      ocsp_responder_key_validity: fc.integer({ min: 1, max: 32767 }),
      acme_enabled: fc.boolean(),
      acme_profile: fc.constantFrom('webserver', 'client'),
      sign_certificate_policies: fc.constantFrom(null, { value: [{ policy_identifier: '2.5.29.32.0' }] }),
      sign_crl_distribution_points: fc.constantFrom(null, {
        value: [{ full_name: [{ type: 'URI', value: 'http://crl.example.com/x' }], reasons: ['key_compromise'] }],
      }),
      sign_issuer_alternative_name: fc.constantFrom(null, { value: [{ type: 'URI', value: 'https://ca.example.com' }] }),
      sign_authority_information_access: fc.constantFrom(null, {
        value: [{ access_method: 'ca_issuers', access_location: { type: 'URI', value: 'http://ca.example.com/ca.der' } }],
      }),
    },
    { requiredKeys: [] },
  );
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 3, arbitrary: handBuilt }, { weight: 4, arbitrary: mutate(handBuilt) });
}

const bodyOf = (name: string): fc.Arbitrary<unknown> => fc.oneof(fromSchema(name), mutate(fromSchema(name)));

/** Raw bodies: bytes that are not the JSON they pretend to be, or JSON a naive parser gets wrong. */
function rawBody(ctx: CampaignContext): fc.Arbitrary<Buffer> {
  const csr = JSON.stringify(ctx.csrs[0]);
  const b = (...parts: (string | number[])[]) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
  return fc.constantFrom(
    b('{"csr": "', [0xff, 0xfe], '", "subject": []}'),
    b('{"csr": "', [0xc0, 0x80], '", "subject": []}'), // overlong NUL
    b('{"caa_identity": "', [0xed, 0xa0, 0x80], '"}'), // a surrogate encoded as UTF-8
    b('{"name": "', [0xe2, 0x82], '"}'), // truncated sequence
    b([0xef, 0xbb, 0xbf], '{"caa_identity": "bom"}'),
    b('{"caa_identity": "\\ud800"}'),
    b('{"caa_identity": "\\udc00\\ud800"}'),
    b('{"caa_identity": "\\u0000"}'),
    b(`{"csr": ${csr}, "subject": [{"oid": "CN", "value": "dup"}], "csr": 5}`),
    b(`{"subject": 5, "csr": ${csr}, "subject": [{"oid": "CN", "value": "dup"}]}`),
    b('{"reason": "superseded", "reason": "keyCompromise"}'),
    b(`{"__proto__": {"csr": ${csr}}, "subject": []}`),
    b(`{"csr": ${csr}, "subject": [], "constructor": {"prototype": {"polluted": true}}}`),
    b('{"a": 1} trailing'),
    b('{'),
    b('{"a":}'),
    b('NaN'),
    b('null'),
    b('[]'),
    b('"string"'),
    b('12345678901234567890123456789'),
    b(' \n\t '),
    b(`{"csr": ${'['.repeat(100_000)}`),
    b(`{"x": ${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`),
    b(`{"extensions": [${Array.from({ length: 20_000 }, () => '{"type":"ocsp_no_check"}').join(',')}], "csr": ${csr}, "subject": []}`),
    b(`{"csr": "${'A'.repeat(2_000_000)}", "subject": []}`),
    b('{"caa_identity": "\\uD83D\\uDE00"}'),
    b('{"ocsp_response_validity": 1e400}'),
    b('{"ocsp_response_validity": -1e-400}'),
    b('{"ocsp_responder_key_validity": 123456789012345678901234567890}'),
  );
}

// ---------------------------------------------------------------------------------------------------
// Headers

function headersArb(ctx: CampaignContext): fc.Arbitrary<Record<string, string>> {
  const auth = fc.oneof(
    { weight: 20, arbitrary: fc.constant(basicAuth('alice', ctx.password)) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        basicAuth('no_sign_certificate', ctx.password),
        basicAuth('no_change_certificateauthority', ctx.password),
        basicAuth('no_view_certificate', ctx.password),
        basicAuth('alice', 'wrong'),
        basicAuth('nobody', 'x'),
        basicAuth('alice\u0000', ctx.password),
        basicAuth('', ''),
        `Basic ${Buffer.from([0xff, 0x3a, 0x41]).toString('base64')}`,
        'Basic',
        'Basic !!!',
        'Basic YWxpY2U=',
        'Bearer abc',
        `basic    ${Buffer.from(`alice:${ctx.password}`).toString('base64')}`,
        `Basic ${'A'.repeat(6000)}`,
        '',
      ),
    },
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    '',
  );
  const extra = fc.constantFrom<Record<string, string>>(
    {},
    {},
    {},
    { Accept: 'text/html' },
    { 'X-Forwarded-For': 'not-an-address, ::1, 999.1.1.1' },
    { 'Content-Encoding': 'gzip' },
    { Origin: 'http://evil.example' },
    { 'Accept-Encoding': 'br, gzip, deflate' },
    { 'If-None-Match': '*' },
    { Range: 'bytes=0-1' },
  );
  return fc.tuple(auth, contentType, extra).map(([a, ct, x]) => {
    const h: Record<string, string> = { ...x };
    if (a) h.Authorization = a;
    if (ct) h['Content-Type'] = ct;
    return h;
  });
}

// ---------------------------------------------------------------------------------------------------
// Requests

/** One endpoint's requests: `path` a template with fc arbitraries for its parameters. */
function endpoint(
  ctx: CampaignContext,
  kind: string,
  method: string,
  path: fc.Arbitrary<string>,
  query: fc.Arbitrary<string>,
  body?: fc.Arbitrary<unknown>,
): fc.Arbitrary<CampaignRequest> {
  const payload: fc.Arbitrary<{ body?: Buffer; raw: boolean }> = body
    ? fc.oneof(
        { weight: 9, arbitrary: body.map((v) => ({ body: json(v), raw: false })) },
        { weight: 1, arbitrary: rawBody(ctx).map((buf) => ({ body: buf, raw: true })) },
      )
    : fc.constant({ raw: false });
  return fc
    .tuple(path, query, payload, headersArb(ctx), fc.integer({ min: 0, max: 99 }))
    .map(([p, q, { body: b, raw }, headers, dice]) => ({
      method,
      path: `${API}${p}${q}`,
      headers,
      body: b,
      chunked: b !== undefined && dice < 5,
      kind: `${kind}${raw ? ' (raw body)' : ''}`,
    }));
}

/** Requests for every route of lib/api/routes.ts, plus wrong methods, unknown and traversal paths. */
export function campaignRequest(ctx: CampaignContext): fc.Arbitrary<CampaignRequest> {
  const ca = serialArb(ctx, [ctx.caSerial]);
  const cert = serialArb(ctx, ctx.certSerials);
  const none = fc.constant('');
  const shapes: [number, fc.Arbitrary<CampaignRequest>][] = [
    [1, endpoint(ctx, 'list_profiles', 'GET', fc.constant('/profiles/'), none)],
    [
      2,
      endpoint(
        ctx,
        'view_profile',
        'GET',
        profileNameArb.map((n) => `/profiles/${n}/`),
        none,
      ),
    ],
    [2, endpoint(ctx, 'list_cas', 'GET', fc.constant('/ca/'), queryArb('ListCertificateAuthoritiesQuery'))],
    [
      1,
      endpoint(
        ctx,
        'view_ca',
        'GET',
        ca.map((s) => `/ca/${s}/`),
        none,
      ),
    ],
    [
      5,
      endpoint(
        ctx,
        'update_ca',
        'PUT',
        ca.map((s) => `/ca/${s}/`),
        none,
        updateBody(),
      ),
    ],
    [
      12,
      endpoint(
        ctx,
        'sign',
        'POST',
        ca.map((s) => `/ca/${s}/sign/`),
        none,
        signBody(ctx),
      ),
    ],
    [
      1,
      endpoint(
        ctx,
        'get_order',
        'GET',
        fc.tuple(ca, slugArb(ctx)).map(([s, o]) => `/ca/${s}/orders/${o}/`),
        none,
      ),
    ],
    [
      3,
      endpoint(
        ctx,
        'list_certs',
        'GET',
        ca.map((s) => `/ca/${s}/certs/`),
        queryArb('ListCertificatesQuery'),
      ),
    ],
    [
      1,
      endpoint(
        ctx,
        'view_cert',
        'GET',
        fc.tuple(ca, cert).map(([s, c]) => `/ca/${s}/certs/${c}/`),
        none,
      ),
    ],
    [
      3,
      endpoint(
        ctx,
        'resign',
        'POST',
        fc.tuple(ca, cert).map(([s, c]) => `/ca/${s}/certs/${c}/resign/`),
        none,
        bodyOf('ResignCertificate'),
      ),
    ],
    [
      3,
      endpoint(
        ctx,
        'revoke',
        'POST',
        fc.tuple(ca, cert).map(([s, c]) => `/ca/${s}/certs/${c}/revoke/`),
        none,
        bodyOf('RevokeCertificate'),
      ),
    ],
  ];
  const odd: fc.Arbitrary<CampaignRequest> = fc
    .tuple(
      fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      fc.oneof(
        fc.constantFrom(
          `/ca/${ctx.caSerial}`,
          `/ca/${ctx.caSerial}/sign`,
          '/ca/../profiles/',
          '/ca/%2e%2e/profiles/',
          '/ca/..%2F..%2F/',
          '//ca//',
          '/CA/',
          '/ca/./',
          '/profiles/../../../../etc/passwd',
          '/openapi.json/../ca/',
          '/docs/../../',
          '/unknown/',
          '/%00/',
          '/ca/%00/',
          `/ca/${ctx.caSerial}/certs/${ctx.certSerials[0]}/revoke/extra/`,
          '',
        ),
        ca.map((s) => `/ca/${s}/`),
        fc.string({ maxLength: 30 }).map((s) => `/${pct(s)}/`),
      ),
      headersArb(ctx),
      fc.option(
        plausibleString.map((s) => json({ s })),
        { nil: undefined },
      ),
    )
    .map(([method, path, headers, body]) => ({ method, path: `${API}${path}`, headers, body, kind: 'odd method or path' }));
  return fc.oneof(...shapes.map(([weight, arbitrary]) => ({ weight, arbitrary })), { weight: 3, arbitrary: odd });
}
