/**
 * One issuing service (docs/DESIGN.md "Issuance service"): every end-entity certificate the library
 * makes is built and signed in lib/ca/issuance/sign.ts and stored by lib/ca/issuance/ — whichever
 * way in asked (REST, ACME, ca-admin, the OCSP responder, the next ones). Checked on the syntax tree
 * of every source file of the library, the adapters and the example server: a call of the
 * certificate builder, or of a store method that inserts certificate rows, anywhere else fails.
 *
 * The one other caller of the builder is lib/ca/authorities.ts: a CA's own certificate (init_ca,
 * self-signed or signed by its parent), which is stored as a certificate authority, not as a
 * certificate row. The store adapters implement the insert methods and may call them among themselves.
 */
import * as fs from 'fs';
import * as path from 'path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const SERVICE = 'lib/ca/issuance/';

/** Store port methods that write a certificate row (lib/ports: Store, BatchOrderStore, IssuedOrderStore, AcmeStore, EnrolmentStore). */
const PORT_INSERTS = ['insertCertificate', 'issueOrders', 'createIssuedOrder', 'completeIssuance', 'insertAnsweringCertificate'];
/** Those, and the knex store's own bulk insert (benches seed with it; the library never calls it). */
const CERTIFICATE_INSERTS = new Set([...PORT_INSERTS, 'insertCertificateIds']);

const BUILDER = 'buildCertificate';
const BUILDER_ALLOWED = new Set(['lib/ca/authorities.ts', 'lib/x509/builder.ts']);
/** The authority's two halves of the builder: the TBSCertificate, recorded as an intent, then its signature. */
const AUTHORITY = 'lib/ca/issuance/sign.ts';
const UNSIGNED = 'unsignedCertificate';
const SIGN_UNSIGNED = 'signUnsignedCertificate';

/**
 * Who opens a CA's key to sign (lib/ca/key-backends.ts `caSigner`): certificates only through the
 * authority; the CA's own certificate (authorities.ts), its CRLs (crls.ts) and OCSP answers signed
 * by the CA itself (ocsp-delegate.ts) are the other documents a CA signs; ca-admin verify_restore
 * (lib/cli/restore-check.ts) opens the key to prove the key-encryption key fits and signs nothing.
 */
const CA_SIGNER = 'caSigner';
const CA_SIGNER_ALLOWED = new Set([
  AUTHORITY,
  'lib/ca/authorities.ts',
  'lib/ca/crls.ts',
  'lib/ca/ocsp-delegate.ts',
  'lib/cli/restore-check.ts',
  'lib/ca/key-backends.ts',
]);
/**
 * A key backend's own `getSigner` is called only behind `caSigner`/`openSigner` (key-backends.ts), for
 * a new CA's key (authorities.ts), and by backends that implement the port by delegating to another
 * (ca-admin's lazily opened HSM backend, lib/cli/main.ts; the adapters).
 */
const GET_SIGNER_ALLOWED = new Set(['lib/ca/key-backends.ts', 'lib/ca/authorities.ts', 'lib/cli/main.ts']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out.sort();
}

/** The names called in `file`: `f(…)` as `f`, `x.f(…)` and `x?.f(…)` as `f`, `x['f'](…)` as `f`. */
function calledNames(file: string): { name: string; line: number }[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { name: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      let name: string | null = null;
      if (ts.isIdentifier(callee)) name = callee.text;
      else if (ts.isPropertyAccessExpression(callee)) name = callee.name.text;
      else if (ts.isElementAccessExpression(callee) && ts.isStringLiteralLike(callee.argumentExpression))
        name = callee.argumentExpression.text;
      if (name) found.push({ name, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const FILES = [...sourceFiles('lib'), ...sourceFiles('adapters'), ...sourceFiles('examples')];

/** The modules `file` imports (or re-exports from), as written: `'../api/sign-request-json'`. */
function importedModules(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  return source.statements.flatMap((s) =>
    (ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier)
      ? [s.moduleSpecifier.text]
      : [],
  );
}

/**
 * The authority's one entry (lib/ca/issuance/prepare.ts `prepareIssuance`): whether the CA may sign is
 * asked there, before any door's request becomes a `SignRequest`; sign.ts asks again, with the same
 * function, when it finally signs (an order waits: the CA may be revoked or expire meanwhile).
 */
const ENTRY = 'lib/ca/issuance/prepare.ts';
const MAY_SIGN = 'assertCaCanSign';
/** REST's reading of a sign request body: the ways in with their own parsed requests do not use it. */
const REST_JSON = 'sign-request-json';
const TYPED_DOORS = ['lib/acme/', 'lib/enrolment/', 'lib/est/', 'lib/scep/'];

function callsOutside(names: ReadonlySet<string>, allowed: (file: string) => boolean): string[] {
  return FILES.filter((f) => !allowed(f)).flatMap((f) =>
    calledNames(f)
      .filter((c) => names.has(c.name))
      .map((c) => `${f}:${c.line} ${c.name}()`),
  );
}

describe('the issuing service (lib/ca/issuance)', () => {
  it('is the only place that builds and signs an end-entity certificate', () => {
    expect(callsOutside(new Set([BUILDER]), (f) => BUILDER_ALLOWED.has(f))).toEqual([]);
    expect(callsOutside(new Set([UNSIGNED, SIGN_UNSIGNED]), (f) => f === AUTHORITY || f === 'lib/x509/builder.ts')).toEqual([]);
  });

  it('records the intent before the signature: recordIntent is called between the TBS and signUnsignedCertificate', () => {
    const calls = calledNames(AUTHORITY);
    const line = (name: string) => calls.filter((c) => c.name === name).map((c) => c.line);
    expect(line(SIGN_UNSIGNED)).toHaveLength(1);
    expect(line('recordIntent')).toHaveLength(1);
    expect(line(UNSIGNED)[0]).toBeLessThan(line('recordIntent')[0]);
    expect(line('recordIntent')[0]).toBeLessThan(line(SIGN_UNSIGNED)[0]);
  });

  it("is the only place that opens a CA's key to sign a certificate (the key backends' signers)", () => {
    expect(callsOutside(new Set([CA_SIGNER]), (f) => CA_SIGNER_ALLOWED.has(f))).toEqual([]);
    expect(callsOutside(new Set(['getSigner']), (f) => GET_SIGNER_ALLOWED.has(f) || f.startsWith('adapters/keys/'))).toEqual([]);
    // Inside lib/ca/issuance, only the authority opens a key.
    const issuanceFiles = FILES.filter((f) => f.startsWith(SERVICE) && f !== AUTHORITY);
    expect(issuanceFiles.flatMap((f) => calledNames(f).filter((c) => c.name === CA_SIGNER || c.name === 'openSigner'))).toEqual([]);
  });

  it('is the only place that stores a certificate row (the store adapters implement the writes)', () => {
    expect(callsOutside(CERTIFICATE_INSERTS, (f) => f.startsWith(SERVICE) || f.startsWith('adapters/store/'))).toEqual([]);
  });

  it('is really called: the checks find the calls the service makes (the scan is not blind)', () => {
    const inService = FILES.filter((f) => f.startsWith(SERVICE)).flatMap((f) => calledNames(f).map((c) => c.name));
    expect(inService).toEqual(expect.arrayContaining([UNSIGNED, SIGN_UNSIGNED, CA_SIGNER, 'recordIntent', ...PORT_INSERTS]));
    // A call from elsewhere is seen: the CA's own certificate in authorities.ts.
    expect(calledNames('lib/ca/authorities.ts').map((c) => c.name)).toContain(BUILDER);
  });
});

describe("the authority's one entry (lib/ca/issuance/prepare.ts)", () => {
  it('asks whether the CA may sign in one place before signing, and sign.ts again at signing time', () => {
    const calls = FILES.flatMap((f) =>
      calledNames(f)
        .filter((c) => c.name === MAY_SIGN)
        .map(() => f),
    );
    expect(calls.sort()).toEqual([ENTRY, AUTHORITY]);
  });

  it("takes ACME's and enrolment's requests as they parsed them: no door but REST imports REST's JSON reader", () => {
    const readers = FILES.filter((f) => TYPED_DOORS.some((d) => f.startsWith(d))).filter((f) =>
      importedModules(f).some((m) => m.endsWith(`/${REST_JSON}`)),
    );
    expect(readers).toEqual([]);
    // The scan is not blind: the typed doors do call the entry, and REST reads its body with the reader.
    expect(calledNames('lib/acme/issue.ts').map((c) => c.name)).toContain('prepareIssuance');
    expect(calledNames('lib/enrolment/enrol.ts').map((c) => c.name)).toContain('prepareIssuance');
    expect(importedModules('lib/api/order-desk.ts')).toContain(`./${REST_JSON}`);
  });
});
