/**
 * The OpenAPI document: valid OpenAPI 3.1 (checked by @seriousme/openapi-schema-validator), usable by
 * a code generator (openapi-typescript), complete (eleven operations with the contract's ids), and
 * built from the same schemas that validate requests. Both tools are ESM command-line programs, so
 * they run as child processes on a file.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import request from 'supertest';
import { promisify } from 'util';
import { ROUTES } from '../../lib/api/routes';
import { validatorFor } from '../../lib/api/validation';
import { corpusNames, loadCorpusEntry } from '../helpers/corpus';
import { buildApp, memoryUserStore, type TestApp } from '../helpers/http';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };

const OPERATIONS = [
  'list_profiles',
  'view_profile',
  'list_certificate_authorities',
  'view_certificate_authority',
  'update_certificate_authority',
  'sign_certificate',
  'get_certificate_order',
  'list_certificates',
  'view_certificate',
  'resign_certificate',
  'revoke_certificate',
];

type Doc = {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters: { name: string; in: string }[];
        responses: Record<string, unknown>;
        requestBody?: unknown;
        security: unknown;
      }
    >
  >;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

let t: TestApp;
let doc: Doc;
let tmp: string;

beforeAll(async () => {
  t = buildApp({ enableRestApi: true, store: memoryUserStore() });
  const res = await request(t.app).get('/django_ca/api/openapi.json'); // no credentials needed
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.body as Doc;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  fs.writeFileSync(path.join(tmp, 'openapi.json'), res.text);
});

afterAll(async () => {
  await t.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function operations(d: Doc): { method: string; path: string; op: Doc['paths'][string][string] }[] {
  return Object.entries(d.paths).flatMap(([p, methods]) => Object.entries(methods).map(([method, op]) => ({ method, path: p, op })));
}

test('is valid OpenAPI 3.1 according to @seriousme/openapi-schema-validator', async () => {
  const script = `
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const v = new Validator();
    const res = await v.validate(${JSON.stringify(path.join(tmp, 'openapi.json'))});
    console.log(JSON.stringify({ valid: res.valid, version: v.version, errors: res.errors }));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  const result = JSON.parse(stdout) as { valid: boolean; version: string; errors?: unknown };
  expect(result.errors).toBeUndefined();
  expect(result).toMatchObject({ valid: true, version: '3.1' });
});

test('openapi-typescript generates types from it', async () => {
  const out = path.join(tmp, 'api.d.ts');
  await run(process.execPath, [path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), path.join(tmp, 'openapi.json'), '-o', out], {
    cwd: ROOT,
  });
  const types = fs.readFileSync(out, 'utf8');
  for (const op of OPERATIONS) expect(types).toContain(`service_api_endpoints_${op}: {`);
  expect(types).toMatch(/CertificateOrder: \{/);
  expect(types).toMatch(/status: "pending" \| "issued" \| "failed";/);
});

test('header: versions and security scheme', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.info).toMatchObject({ title: 'django-ca API', version: '3.1.0', 'x-package-version': pkg.version });
  expect(doc.components.securitySchemes).toEqual({ BasicAuth: { type: 'http', scheme: 'basic' } });
});

test("the eleven operations, with the contract's operation ids, absolute paths and methods", () => {
  const found = operations(doc)
    .map(({ method, path: p, op }) => [op.operationId, method.toUpperCase(), p])
    .sort();
  const expected = ROUTES.map((r) => [`service_api_endpoints_${r.operation}`, r.method, `/django_ca/api${r.path}`]).sort();
  expect(found).toEqual(expected);
  expect(found.map((f) => f[0]).sort()).toEqual(OPERATIONS.map((o) => `service_api_endpoints_${o}`).sort());
  expect(Object.keys(doc.paths)).toContain('/django_ca/api/ca/{serial}/certs/{certificate_serial}/revoke/');
});

test('each operation has a summary of its own that says what it does', () => {
  const summaries = operations(doc).map(({ op }) => (op as { summary?: string }).summary);
  expect(new Set(summaries).size).toBe(summaries.length);
  const viewProfile = operations(doc).find(({ op }) => op.operationId === 'service_api_endpoints_view_profile');
  expect((viewProfile?.op as { summary?: string }).summary).toBe('View profile');
});

test('every operation: path parameters, security, error responses with the error schemas', () => {
  for (const { path: p, op } of operations(doc)) {
    const pathParams = [...p.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
    expect(op.parameters.filter((x) => x.in === 'path').map((x) => x.name)).toEqual(pathParams);
    expect(op.security).toEqual([{ BasicAuth: [] }]);
    expect(op.responses['401']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
    expect(op.responses['403']).toBeDefined();
    if (op.requestBody) {
      expect(op.responses['422']).toMatchObject({
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationError' } } },
      });
      expect(op.responses['400']).toBeDefined();
    }
  }
  const listCerts = doc.paths['/django_ca/api/ca/{serial}/certs/'].get;
  expect(
    listCerts.parameters
      .filter((x) => x.in === 'query')
      .map((x) => x.name)
      .sort(),
  ).toEqual([
    'autogenerated',
    'cursor',
    'expired',
    'limit',
    'not_after_after',
    'not_after_before',
    'profile',
    'revoked',
    'san',
    'serial',
    'subject',
  ]);
});

test('components are the schema files; every $ref resolves', () => {
  const files = fs
    .readdirSync(path.join(ROOT, 'schemas'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
  expect(Object.keys(doc.components.schemas).sort()).toEqual(files);
  const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
  expect(refs.length).toBeGreaterThan(50);
  for (const ref of refs) {
    expect(ref).toMatch(/^#\/components\/schemas\//);
    expect(doc.components.schemas[ref.split('/').pop() as string]).toBeDefined();
  }
});

test('paths follow urlPath and the host mount path', async () => {
  const other = buildApp({ enableRestApi: true, store: memoryUserStore(), urlPath: '' }, {}, '/pki');
  try {
    const res = await request(other.app).get('/pki/api/openapi.json');
    expect(Object.keys(res.body.paths)).toContain('/pki/api/ca/{serial}/');
  } finally {
    await other.close();
  }
});

describe('the output schemas describe real certificates (corpus, independent data)', () => {
  const extension = validatorFor('CertificateExtension');
  const name = validatorFor('Name');
  test.each(corpusNames())('%s', (entry) => {
    const { facts } = loadCorpusEntry(entry);
    const subjectOk: boolean = name(facts.subject);
    expect(subjectOk ? null : name.errors).toBeNull();
    for (const ext of facts.extensions) {
      const ok: boolean = extension(ext);
      expect(ok ? null : [ext.type, extension.errors]).toBeNull();
    }
  });
});
