/**
 * The layout rules of docs/CONTRIBUTING.md, checked on the source tree: the library core depends on
 * ports, not adapters (only the composition roots and the package entry import adapters); lib/x509 is pure and imports
 * nothing of ours outside itself; no import circles; small files. And the modules (the ways in,
 * docs/DESIGN.md "Modules (ways in)"): every public endpoint is an entry of its module's route table,
 * dispatched by the shared kit's path matcher; no module imports another module's files; the kit
 * (lib/http) imports no module.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ROUTES } from '../../lib/api/routes';
import { REVOCATION_ROUTES } from '../../lib/revocation-endpoints/routes';
import { ACME_ROUTES } from '../../lib/acme/routes';
import { EST_ROUTES } from '../../lib/est/routes';
import { SCEP_ROUTES } from '../../lib/scep/routes';
import { docSection } from '../helpers/docs';

const ROOT = path.resolve(__dirname, '../..');
const COMPOSITION_ROOTS = ['lib/index.ts', 'lib/wiring.ts', 'lib/cli/main.ts'];
const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out.sort();
}

/** Relative imports (static `import`/`export … from`, `require`, `import()`), resolved to repo paths. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|require\(\s*|import\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
  return specs.map((spec) => {
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    for (const candidate of [`${base}.ts`, `${base}/index.ts`, base]) {
      if (fs.existsSync(path.join(ROOT, candidate)) && fs.statSync(path.join(ROOT, candidate)).isFile()) return candidate;
    }
    return base;
  });
}

/** Every import circle among `files` (each reported once, as the path round it). */
function cycles(files: string[]): string[][] {
  const inside = new Set(files);
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((i) => inside.has(i))]));
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const next of graph.get(f) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return found;
}

const lib = sourceFiles('lib');
const adapters = sourceFiles('adapters');

/**
 * The modules (ways in), each with its route table and the folder of the handlers its table names
 * (docs/CONTRIBUTING.md "How to add a protocol"). `readme` is the documented table of the module's
 * endpoints (README or docs/, test/helpers/docs.ts): the heading it stands under.
 */
const MODULES = [
  { dir: 'lib/api', table: 'lib/api/routes.ts', routes: ROUTES, readme: 'Endpoints' },
  {
    dir: 'lib/revocation-endpoints',
    table: 'lib/revocation-endpoints/routes.ts',
    routes: REVOCATION_ROUTES,
    readme: 'Revocation: CRLs and OCSP',
  },
  { dir: 'lib/acme', table: 'lib/acme/routes.ts', routes: ACME_ROUTES, readme: 'ACME endpoints' },
  { dir: 'lib/est', table: 'lib/est/routes.ts', routes: EST_ROUTES, readme: 'EST endpoints' },
  { dir: 'lib/scep', table: 'lib/scep/routes.ts', routes: SCEP_ROUTES, readme: 'SCEP endpoints' },
];

/**
 * What each folder of lib/ and adapters/ may import besides itself (docs/CONTRIBUTING.md "Layout and
 * layers"): a folder, or one file of a folder where only that file is meant. Every folder has a rule
 * (a new one fails the test until it is given one). The composition roots (lib/index.ts, lib/wiring.ts,
 * lib/cli/main.ts) and the files at the top of lib/ (the router's composition and options) are not
 * held to a folder's rule: they wire the rest, adapters included.
 *
 * Bottom up: the engine imports nothing; the ports only the engine; the authority (lib/ca) the ports,
 * the engine and the work loop, no door and no adapter; the doors (the modules, the admin interface,
 * ca-admin, the enrolment core) the authority and what is below it, never each other unless listed
 * here with a reason; an adapter the ports it implements and the engine, and the exceptions below,
 * each with its reason — never lib/ca.
 */
const ALLOWED_IMPORTS: Record<string, readonly string[]> = {
  // The certificate engine: pure (the test above, too).
  'lib/x509': [],
  // The interfaces the adapters implement: their data types are the engine's (keys, names, signers).
  'lib/ports': ['lib/x509'],
  // The background work's engine (loop, back-off): used by lib/ca, lib/acme and lib/webhooks, importing none of them; the ports only (a lost connection).
  'lib/work': ['lib/ports'],
  // The caches the modules share in front of the store.
  'lib/cache': ['lib/ports'],
  // The authority (CA lifecycle, issuance, revocation, CRLs, OCSP): the ports, the engine and the work
  // loop its order runner turns; no door (the doors depend on it), no adapter, no setting.
  'lib/ca': ['lib/ports', 'lib/x509', 'lib/work'],
  // API users and their permissions in words: the ports, the serial's forms, and the authority's error type.
  'lib/accounts': ['lib/ports', 'lib/x509', 'lib/ca/errors.ts'],
  // The audit trail: its hash chain's check, a login lockout recorded, an actor in words; the ports only.
  'lib/audit': ['lib/ports'],
  // The settings from the environment: the profiles they read (lib/ca/profiles.ts), the default profile's name (lib/ports/ca-fields.ts), the engine; no module, no adapter.
  'lib/settings': ['lib/ca/profiles.ts', 'lib/ports', 'lib/x509'],
  // The HTTP kit: the profiles every signing entry's options share (profile-options.ts), the ports,
  // the engine; the router's environment defaults through the settings, as ca-admin reads them. No module.
  'lib/http': ['lib/ca/profiles.ts', 'lib/ports', 'lib/x509', 'lib/settings'],
  // Webhook delivery (not a module: no HTTP served): the ports, the work loop, the kit's option checks
  // and error logger's type, and the authority's error type for ca-admin's management functions.
  'lib/webhooks': ['lib/ports', 'lib/work', 'lib/http/option-checks.ts', 'lib/http/error-catch.ts', 'lib/ca/errors.ts'],
  // The doors. A module: the kit, the authority, the caches, the ports, the engine.
  // The REST API also its documentation (lib/openapi) and the lockout record of its Basic auth.
  'lib/api': ['lib/http', 'lib/ca', 'lib/cache', 'lib/ports', 'lib/x509', 'lib/openapi', 'lib/audit/lockouts.ts'],
  // The REST API's OpenAPI document, read from its route table and schemas.
  'lib/openapi': ['lib/api'],
  'lib/revocation-endpoints': ['lib/http', 'lib/ca', 'lib/cache', 'lib/ports', 'lib/x509'],
  // ACME also runs background work (validations, issuance): the shared work loop and back-off of lib/work.
  'lib/acme': ['lib/http', 'lib/ca', 'lib/cache', 'lib/ports', 'lib/x509', 'lib/work'],
  // The enrolment core that EST and SCEP share: the issuance service and its rules, the ports, the
  // engine, and the kit's option checks (their options read alike); no module.
  'lib/enrolment': ['lib/ca', 'lib/ports', 'lib/x509', 'lib/http'],
  // EST: the kit, the rules and the issuance service, the caches, the ports, the engine (PKCS#7), the enrolment core.
  'lib/est': ['lib/http', 'lib/ca', 'lib/cache', 'lib/ports', 'lib/x509', 'lib/enrolment'],
  // SCEP: as EST, and its messages' CMS (lib/x509/scep); its RA (ra.ts) over the authority's delegate issuance (lib/ca).
  'lib/scep': ['lib/http', 'lib/ca', 'lib/cache', 'lib/ports', 'lib/x509', 'lib/enrolment'],
  // The metrics endpoint: the kit and the ports (its exposition is an adapter, chosen by the composition root).
  'lib/metrics': ['lib/http', 'lib/ports'],
  // The admin web interface: the kit, the authority, the accounts and the audit trail, the caches,
  // the ports, the engine; the webhooks' management functions. What it does as ca-admin does, it
  // does with ca-admin's files, listed one by one:
  'lib/admin': [
    'lib/http',
    'lib/ca',
    'lib/accounts',
    'lib/audit',
    'lib/cache',
    'lib/ports',
    'lib/x509',
    'lib/webhooks/management.ts',
    // Of lib/acme, as ca-admin: making an EAB key, checking a CA's policy names.
    'lib/acme/eab/create-key.ts',
    'lib/acme/policy/entries.ts',
    // Deactivating an account as the ACME client does: RFC 8555's state machine (pure, no HTTP).
    'lib/acme/state-machine.ts',
    // Approving and refusing enrolment requests, and managing stored endpoints, as ca-admin does.
    'lib/enrolment/approval.ts',
    'lib/enrolment/stored-endpoints.ts',
    // Its issue and resign pages sign with ca-admin's rules (sign_cert, resign_cert).
    'lib/cli/certificates.ts',
    // Its export writes the CSV of `ca-admin list_certs --format csv`, the same columns.
    'lib/cli/certificates-csv.ts',
  ],
  // ca-admin (its entry, lib/cli/main.ts, is a composition root): the authority, the accounts, the
  // audit trail, the settings, the ports, the engine; of the other doors only what they share with it.
  'lib/cli': [
    'lib/ca',
    'lib/accounts',
    'lib/audit',
    'lib/settings',
    'lib/ports',
    'lib/x509',
    // REST's JSON of a record, which ca-admin prints as django-ca's CLI does (docs/DESIGN.md "What lives in lib/ca").
    'lib/api/serialize.ts',
    // ACME's files shared with ca-admin (ACME_SHARED_WITH_CLI below).
    'lib/acme/eab/create-key.ts',
    'lib/acme/policy/entries.ts',
    'lib/acme/store-capability.ts',
    // The enrolment commands: approval, challenges, stored endpoints.
    'lib/enrolment/approval.ts',
    'lib/enrolment/challenges.ts',
    'lib/enrolment/stored-endpoints.ts',
    // The webhook commands.
    'lib/webhooks/management.ts',
  ],
  // The adapters: the ports they implement and the engine, and no more but these exceptions.
  // The store: also the database URL's reading from the environment (lib/settings/database-url.ts,
  // environment.ts). Nothing of lib/ca (the validity window and the CA's fields are the ports', a
  // certificate's JSON text the engine's).
  'adapters/store': ['lib/ports', 'lib/x509', 'lib/settings/database-url.ts', 'lib/settings/environment.ts'],
  // The default ACME challenge validators: also the DNS server form their settings share with
  // CA_ACME_DNS_SERVERS (lib/settings/dns-server.ts).
  'adapters/acme-validation': ['lib/ports', 'lib/x509', 'lib/settings/dns-server.ts'],
  // The authenticator and permission checker: bcrypt on the worker pool (adapters/threads), the user
  // cache on the one cache structure (lib/cache/record-cache.ts), and the login limiter's table read
  // with the store's mapping of database errors to outages (adapters/store/knex/errors.ts).
  'adapters/auth': ['lib/ports', 'lib/cache/record-cache.ts', 'adapters/threads', 'adapters/store/knex/errors.ts'],
  // The signature verifier: on the worker pool (adapters/threads).
  'adapters/crypto': ['lib/ports', 'lib/x509', 'adapters/threads'],
  // The key backends: the key-encryption key from the environment (lib/settings), and RSA decryption
  // on the verifier's worker pool (adapters/crypto/rsa-decrypt-pool.ts).
  'adapters/keys': [
    'lib/ports',
    'lib/x509',
    'lib/settings/environment.ts',
    'lib/settings/key-encryption-key.ts',
    'adapters/crypto/rsa-decrypt-pool.ts',
  ],
  // The worker pool: Node only.
  'adapters/threads': [],
  // The JSON-lines logger, the prom-client metrics, the webhook sender: the ports they implement.
  'adapters/logging': ['lib/ports'],
  'adapters/metrics': ['lib/ports'],
  'adapters/webhooks': ['lib/ports'],
};

/**
 * What ca-admin shares with the ACME module (docs/DESIGN.md "ACME", "What the CLI shares"): making an
 * EAB key, checking the entries of a CA's name policy, the store's ACME capability. One home each, in
 * lib/acme, and none of them HTTP: the CLI imports no other file of lib/acme, and these import nothing
 * of lib/http nor of the rest of lib/acme.
 */
const ACME_SHARED_WITH_CLI = ['lib/acme/eab/create-key.ts', 'lib/acme/policy/entries.ts', 'lib/acme/store-capability.ts'];

/** Imports of `files` that leave `dir` for neither a folder nor a file of `allowed`, as `file → import`. */
function importsLeaving(files: readonly string[], dir: string, allowed: readonly string[]): string[] {
  const permitted = (i: string): boolean => i.startsWith(`${dir}/`) || allowed.some((a) => i === a || i.startsWith(`${a}/`));
  return files.flatMap((f) =>
    importsOf(f)
      .filter((i) => !permitted(i))
      .map((i) => `${f} → ${i}`),
  );
}

/** `[method, path]` of every row of the documented table under `heading` (a row may list several paths). */
function readmeEndpoints(heading: string): string[] {
  const section = docSection(heading).text.split('\n');
  const first = section.findIndex((line) => line.startsWith('|'));
  const end = section.findIndex((line, i) => i > first && !line.startsWith('|'));
  const table = section.slice(first, end);
  return table
    .filter((line) => /^\| (GET|HEAD|POST|PUT|DELETE) \|/.test(line))
    .flatMap((line) => {
      const [, method, paths] = line.split('|').map((cell) => cell.trim());
      return [...paths.matchAll(/`([^`]+)`/g)].map((m) => `${method} ${m[1]}`);
    });
}

describe('layers', () => {
  test('only the composition roots under lib/ import adapters/', () => {
    const offenders = lib
      .filter((f) => !COMPOSITION_ROOTS.includes(f))
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => i.startsWith('adapters/'))
          .map((i) => `${f} → ${i}`),
      );
    expect(offenders).toEqual([]);
  });

  test('lib/x509 imports nothing of ours outside lib/x509', () => {
    const offenders = lib
      .filter((f) => f.startsWith('lib/x509/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => !i.startsWith('lib/x509/'))
          .map((i) => `${f} → ${i}`),
      );
    expect(offenders).toEqual([]);
  });

  test('adapters never import the HTTP layer (lib/http, the modules, lib/router)', () => {
    const http = ['lib/http/', 'lib/api/', 'lib/revocation-endpoints/', 'lib/acme/', 'lib/openapi/'];
    const offenders = adapters.flatMap((f) =>
      importsOf(f)
        .filter((i) => http.some((dir) => i.startsWith(dir)) || i === 'lib/router.ts')
        .map((i) => `${f} → ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  // docs/CONTRIBUTING.md "Layout and layers": an adapter implements a port; what it shares with the
  // authority (the validity window, the CA's fields, a certificate's JSON text) lives in lib/ports or
  // lib/x509, never in lib/ca.
  test('adapters import nothing of lib/ca', () => {
    const offenders = adapters.flatMap((f) =>
      importsOf(f)
        .filter((i) => i.startsWith('lib/ca/'))
        .map((i) => `${f} → ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  // The doors depend on the authority, not the reverse (docs/CONTRIBUTING.md "Layout and layers"): what
  // only a door reads or writes (REST's order desk and JSON, a protocol's messages) lives in that door.
  test('lib/ca imports no door (lib/api, lib/admin, lib/cli, lib/acme, lib/enrolment, lib/est, lib/scep)', () => {
    const doors = ['lib/api/', 'lib/admin/', 'lib/cli/', 'lib/acme/', 'lib/enrolment/', 'lib/est/', 'lib/scep/'];
    const offenders = lib
      .filter((f) => f.startsWith('lib/ca/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => doors.some((d) => i.startsWith(d)))
          .map((i) => `${f} → ${i}`),
      );
    expect(offenders).toEqual([]);
  });

  test.each([['lib/api'], ['lib/revocation-endpoints'], ['lib/acme'], ['lib/http'], ['lib/x509'], ['lib/ca'], ['lib'], ['adapters']])(
    'no import circles in %s/',
    (dir) => {
      const files = [...lib, ...adapters].filter((f) => f.startsWith(`${dir}/`));
      expect(files.length).toBeGreaterThan(0);
      expect(cycles(files).map((c) => c.join(' → '))).toEqual([]);
    },
  );

  test(`no source file under lib/ or adapters/ exceeds ${MAX_LINES} lines`, () => {
    const long = [...lib, ...adapters]
      .map((f) => ({ f, lines: fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ f, lines }) => `${f}: ${lines}`);
    expect(long).toEqual([]);
  });

  test('the cycle finder finds a circle (so an empty list above means something)', () => {
    const dir = fs.mkdtempSync(path.join(ROOT, 'test/architecture/.tmp-'));
    try {
      const rel = path.relative(ROOT, dir).split(path.sep).join('/');
      fs.writeFileSync(path.join(dir, 'a.ts'), "import { b } from './b';\nexport const a = b;\n");
      fs.writeFileSync(path.join(dir, 'b.ts'), "import { a } from './a';\nexport const b = a;\n");
      expect(cycles([`${rel}/a.ts`, `${rel}/b.ts`])).toEqual([[`${rel}/a.ts`, `${rel}/b.ts`, `${rel}/a.ts`]]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('modules (ways in)', () => {
  test.each(MODULES.map((m) => [m.dir, m]))('%s: every handler file is imported by the route table', (_dir, m) => {
    const handlers = lib.filter((f) => f.startsWith(`${m.dir}/handlers/`));
    expect(handlers.length).toBeGreaterThan(0);
    const imported = importsOf(m.table);
    expect(handlers.filter((f) => !imported.includes(f))).toEqual([]);
  });

  test.each(MODULES.map((m) => [m.dir, m]))(
    '%s: every function a handler file exports is the handler of a table entry, and back',
    (_dir, m) => {
      const handlers = lib.filter((f) => f.startsWith(`${m.dir}/handlers/`));
      const exported = handlers.flatMap((f) =>
        Object.entries(jest.requireActual<Record<string, unknown>>(path.join(ROOT, f)))
          .filter(([, value]) => typeof value === 'function')
          .map(([name, value]) => ({ name: `${f}: ${name}`, value })),
      );
      const inTable = new Set<unknown>(m.routes.map((r) => r.handler));
      expect(exported.filter((e) => !inTable.has(e.value)).map((e) => e.name)).toEqual([]);
      const exportedValues = new Set(exported.map((e) => e.value));
      expect(m.routes.filter((r) => !exportedValues.has(r.handler)).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    },
  );

  test.each(MODULES.map((m) => [m.dir, m]))(
    "%s: the documented endpoint table (README or docs/) lists exactly the route table's entries",
    (_dir, m) => {
      const documented = readmeEndpoints(m.readme);
      expect(documented.length).toBeGreaterThan(0);
      expect([...documented].sort()).toEqual(m.routes.map((r) => `${r.method} ${r.path}`).sort());
    },
  );

  test.each(MODULES.map((m) => [m.dir, m]))('%s: handlers get their parameters from the matcher, never from the URL', (_dir, m) => {
    const offenders = lib
      .filter((f) => f.startsWith(`${m.dir}/handlers/`))
      .filter((f) => /\breq\.(path|url|originalUrl|baseUrl|params)\b/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  test('the revocation endpoints dispatch through the shared path matcher, with no regular expression of their own', () => {
    const dir = 'lib/revocation-endpoints';
    expect(importsOf(`${dir}/mount.ts`)).toContain('lib/http/path-matcher.ts');
    // Outside the handlers (which may check what they were given, e.g. base64), no pattern at all.
    const offenders = lib
      .filter((f) => f.startsWith(`${dir}/`) && !f.startsWith(`${dir}/handlers/`))
      .filter((f) => /RegExp|\.exec\(|\.test\(|\.match(All)?\(|\.replace\(\//.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  test.each(Object.entries(ALLOWED_IMPORTS))('%s/ imports only itself and %j', (dir, allowed) => {
    const files = [...lib, ...adapters].filter((f) => f.startsWith(`${dir}/`));
    expect(files.length).toBeGreaterThan(0);
    expect(
      importsLeaving(
        files.filter((f) => !COMPOSITION_ROOTS.includes(f)),
        dir,
        allowed,
      ),
    ).toEqual([]);
  });

  test('every folder of lib/ and adapters/ has an import rule, and every rule a folder', () => {
    const folders = ['lib', 'adapters'].flatMap((top) =>
      fs
        .readdirSync(path.join(ROOT, top), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => `${top}/${e.name}`),
    );
    expect(folders.filter((f) => !(f in ALLOWED_IMPORTS))).toEqual([]);
    expect(Object.keys(ALLOWED_IMPORTS).filter((f) => !folders.includes(f))).toEqual([]);
  });

  test('docs/DESIGN.md "Folders and what each may import" has a row for exactly the folders of the rules', () => {
    const rows = docSection('Folders and what each may import')
      .text.split('\n')
      .map((line) => /^\| `([^`]+)` \|/.exec(line)?.[1])
      .filter((folder): folder is string => folder !== undefined);
    expect([...rows].sort()).toEqual(Object.keys(ALLOWED_IMPORTS).sort());
  });

  test('every file an import rule names exists', () => {
    const named = Object.values(ALLOWED_IMPORTS)
      .flat()
      .filter((a) => a.endsWith('.ts'));
    expect(named.filter((f) => !fs.existsSync(path.join(ROOT, f)))).toEqual([]);
  });

  test('ca-admin imports of lib/acme are exactly the files the module shares with it', () => {
    const imported = lib
      .filter((f) => f.startsWith('lib/cli/'))
      .flatMap((f) => importsOf(f).filter((i) => i.startsWith('lib/acme/')))
      .filter((i, n, all) => all.indexOf(i) === n);
    expect(imported.sort()).toEqual([...ACME_SHARED_WITH_CLI].sort());
  });

  test('the files lib/acme shares with ca-admin import no HTTP and nothing else of lib/acme', () => {
    const offenders = ACME_SHARED_WITH_CLI.flatMap((f) =>
      importsOf(f)
        .filter((i) => i.startsWith('lib/http/') || (i.startsWith('lib/acme/') && !ACME_SHARED_WITH_CLI.includes(i)))
        .map((i) => `${f} → ${i}`),
    );
    expect(offenders).toEqual([]);
  });

  test('the import rule sees an adapter importing a lib/ca service (so an empty list above means something)', () => {
    // lib/cli/restore-check.ts opens CA keys through the authority: held to the store adapter's rule, it breaks it.
    const offenders = importsLeaving(['lib/cli/restore-check.ts'], 'adapters/store', ALLOWED_IMPORTS['adapters/store']);
    expect(offenders).toContain('lib/cli/restore-check.ts → lib/ca/key-backends.ts');
  });

  test('the import rule sees a module importing another module (so an empty list above means something)', () => {
    // lib/router.ts composes the modules: held to the REST API's rule, its import of the revocation endpoints breaks it.
    const offenders = importsLeaving(['lib/router.ts'], 'lib/api', ALLOWED_IMPORTS['lib/api']);
    expect(offenders).toContain('lib/router.ts → lib/revocation-endpoints/mount.ts');
  });
});
