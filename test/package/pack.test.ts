/**
 * The package as a user gets it, from a fresh clone with nothing built (test/package/working-copy.ts):
 * `npm pack` makes the tarball (its `prepare` script builds the files), `npm pack --dry-run` lists
 * the same, `npm install <tarball>` puts it into a scratch CommonJS project, and there: the router
 * mounted from CommonJS, from an ES module and from TypeScript through the published types (the
 * README's snippet included; a strict ES module project with skipLibCheck off checks every published
 * declaration, with no type package but Node's and Express's), `npx ca-admin --version / --help / migrate / init_ca /
 * create_api_user`, and one certificate signed through the mounted API that `openssl verify` accepts.
 *
 * The other ways in README "Installing the package" states: a git dependency (npm clones it and runs
 * its `prepare`, as for the tarball), installed into a new app that imports it as an ES module, from
 * TypeScript with NodeNext resolution and from CommonJS; and what `npm publish` would publish, checked
 * with `npm publish --dry-run`: it succeeds, warns about nothing but the missing login of a dry run, and
 * publishes what `npm pack` packed — no source, test, key or data file.
 */
import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { copyWorkingTree, ROOT } from './working-copy';

let dir: string;
let clone: string;
let project: string;
let tarball: string;
/** What `npm pack --dry-run` in the fresh clone said it would pack. */
let dryRunFiles: string[];
const children: ChildProcess[] = [];
const KEK = randomBytes(32).toString('base64');
/** The git-dependency install, started first thing and awaited by its test: it takes minutes (a clone, its install, its build). */
let gitInstall: Promise<{ error: Error | null; stderr: string }>;
let gitApp: string;

const run = (cmd: string, args: string[], env: Record<string, string> = {}, cwd = project) =>
  execFileSync(cmd, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 240_000,
  }).toString();

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eca-install-'));
  gitInstall = installFromGit();
  clone = path.join(dir, 'clone');
  copyWorkingTree(clone);
  expect(fs.existsSync(path.join(clone, 'dist'))).toBe(false); // nothing built beforehand
  // The real pack from nothing built: `prepare` must build, not find an earlier build.
  const out = run('npm', ['pack', '--json', '--pack-destination', dir], {}, clone);
  tarball = path.join(dir, (JSON.parse(out) as { filename: string }[])[0].filename);
  // What `npm pack --dry-run` lists of that build (its `prepare` would only build the same again).
  const dryRun = JSON.parse(run('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], {}, clone)) as { files: { path: string }[] }[];
  dryRunFiles = dryRun[0].files.map((f) => f.path);
  project = path.join(dir, 'app');
  fs.mkdirSync(project);
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'scratch', version: '1.0.0', private: true, type: 'commonjs' }),
  );
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball]);
  // The published declarations refer to Express's and Node's types, which an Express/TypeScript
  // project has anyway; lend those (and what they depend on) from the repository rather than
  // download them — and nothing else of its devDependencies (no @types/node-forge: see the strict
  // consumer below).
  const types = path.join(project, 'node_modules', '@types');
  fs.mkdirSync(types, { recursive: true });
  for (const name of typesWithTheirDependencies(['@types/node', '@types/express'])) {
    fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(types, name.slice('@types/'.length)));
  }
}, 300_000);

/**
 * The working tree committed to a git repository of its own (uncommitted edits count, as in the
 * clone), then `npm install git+file://…` of it into a new app: what a git dependency gets.
 */
function installFromGit(): Promise<{ error: Error | null; stderr: string }> {
  const repository = path.join(dir, 'git-source');
  copyWorkingTree(repository, { nodeModules: false });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repository, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=pack test', '-c', 'user.email=pack@example.com', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'snapshot');
  gitApp = path.join(dir, 'git-app');
  fs.mkdirSync(gitApp);
  fs.writeFileSync(path.join(gitApp, 'package.json'), JSON.stringify({ name: 'git-app', version: '1.0.0', private: true }));
  return new Promise((resolve) =>
    execFile(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', `git+file://${repository}`],
      { cwd: gitApp, timeout: 600_000 },
      (error, _stdout, stderr) => resolve({ error, stderr }),
    ),
  );
}

/** `names` and the `@types/` packages they depend on, transitively, as installed in the repository. */
function typesWithTheirDependencies(names: string[]): string[] {
  const seen = new Set<string>();
  for (const queue = [...names]; queue.length;) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    queue.push(...Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith('@types/')));
  }
  return [...seen];
}

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await gitInstall; // the install runs in `dir`, removed next
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('npm pack --dry-run in a fresh clone lists the built package, and the tarball holds that and nothing else', () => {
  const wanted = [
    'dist/lib/index.js',
    'dist/lib/index.d.ts',
    'dist/lib/x509/index.js',
    'bin/ca-admin.js',
    'schemas/CertificateAuthority.json',
  ];
  const unwanted = (f: string) =>
    /^(lib|adapters|test|examples|bench|docs|dist\/examples|dist\/test|dist\/bench)\//.test(f) || f.endsWith('.map');
  expect(dryRunFiles).toEqual(expect.arrayContaining(wanted));
  expect(dryRunFiles.filter(unwanted)).toEqual([]);
  const files = execFileSync('tar', ['-tzf', tarball])
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  expect(files).toEqual(expect.arrayContaining(wanted));
  expect(files.filter(unwanted)).toEqual([]);
  expect([...files].sort()).toEqual([...dryRunFiles].sort());
});
/** Start `node file` in the scratch project; resolves with its base URL once it listens. */
function start(file: string, env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [file], { cwd: project, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start:\n${out}`)), 60_000);
    child.on('exit', (code) => reject(new Error(`${file} exited with ${code}:\n${out}`)));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    });
  });
}

const APP_BODY = `
  const store = knexStore(await openDatabase(process.env.DATABASE_URL));
  await store.migrate();
  const app = express();
  app.use(createCaApiRouter({ rest: { enabled: true }, store }));
  const server = app.listen(0, '127.0.0.1', () => console.log('listening on ' + server.address().port));
`;

test('mounted from an ES module and from TypeScript through the published types', async () => {
  fs.writeFileSync(
    path.join(project, 'app.mjs'),
    `import express from 'express';\nimport { createCaApiRouter, knexStore, openDatabase } from 'express-ca-api';\n${APP_BODY}`,
  );
  const base = await start('app.mjs', { DATABASE_URL: 'memory://', CA_KEY_ENCRYPTION_KEY: KEK });
  const doc = (await (await fetch(`${base}/django_ca/api/openapi.json`)).json()) as { openapi: string };
  expect(doc.openapi).toBe('3.1.0');

  fs.writeFileSync(
    path.join(project, 'app.ts'),
    `import express from 'express';
import { createCaApiRouter, knexStore, openDatabase, type CaApiRouter, type CaApiRouterOptions } from 'express-ca-api';
import { parseCertificate } from 'express-ca-api/x509';
export async function mount(): Promise<CaApiRouter> {
  const store = knexStore(await openDatabase(process.env.DATABASE_URL));
  const options: CaApiRouterOptions = { rest: { enabled: true, orderWaitMs: 0 }, store };
  const router = createCaApiRouter(options);
  express().use(router);
  return router;
}
export const parse: typeof parseCertificate = parseCertificate;
`,
  );
  const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
  expect(
    run(tsc, [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--esModuleInterop',
      '--skipLibCheck',
      'app.ts',
    ]),
  ).toBe('');
  // The README's mounting snippet, as the ES module it says it is (TypeScript: an .mts file).
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const snippet = /<!-- readme-test: module[^\n]*-->\n```ts\n([\s\S]*?)\n```/.exec(readme)?.[1];
  expect(snippet).toContain('createCaApiRouter(');
  fs.writeFileSync(path.join(project, 'readme-app.mts'), snippet ?? '');
  expect(
    run(tsc, [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--skipLibCheck',
      'readme-app.mts',
    ]),
  ).toBe('');
  // And the compiler does check against those types: a wrong option is an error.
  fs.writeFileSync(
    path.join(project, 'wrong.ts'),
    `import { createCaApiRouter } from 'express-ca-api';\ncreateCaApiRouter({ rest: { enabled: 'yes' } });\n`,
  );
  let complaint = '';
  try {
    run(tsc, ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', 'wrong.ts']);
  } catch (e) {
    complaint = String((e as { stdout?: Buffer }).stdout ?? '');
  }
  expect(complaint).toMatch(/wrong\.ts\(2,\d+\): error TS2322/);
}, 120_000);

test('a strict ES module project type-checks every published declaration, with only the runtime dependencies installed', () => {
  // A consumer as strict as they come: "type": "module", node16 resolution, strict, and
  // skipLibCheck off, so that the compiler checks every declaration the package's `exports` reach.
  // Nothing of the repository's devDependencies is there but Node's and Express's types (above):
  // a declaration that needs another type package (TS7016, TS2307) fails here.
  const consumer = path.join(project, 'strict-esm');
  fs.mkdirSync(consumer);
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'strict-esm', private: true, type: 'module' }));
  fs.writeFileSync(
    path.join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'node16',
        moduleResolution: 'node16',
        target: 'es2022',
        skipLibCheck: false,
        noEmit: true,
      },
      files: ['index.ts'],
    }),
  );
  fs.writeFileSync(
    path.join(consumer, 'index.ts'),
    `import express from 'express';
import * as api from 'express-ca-api';
import * as x509 from 'express-ca-api/x509';
import { createCaApiRouter, knexStore, openDatabase, type CaApiRouterOptions } from 'express-ca-api';
import { parseCertificate, type ParsedCertificate } from 'express-ca-api/x509';

const store = knexStore(await openDatabase(process.env.DATABASE_URL));
const options: CaApiRouterOptions = { rest: { enabled: true }, store };
express().use(createCaApiRouter(options));
export const parse: (der: Buffer) => ParsedCertificate = (der) => parseCertificate(der);
export const everything = [api, x509];
`,
  );
  expect(fs.existsSync(path.join(project, 'node_modules', '@types', 'node-forge'))).toBe(false);
  let complaint = '';
  try {
    run(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], {}, consumer);
  } catch (e) {
    complaint = String((e as { stdout?: Buffer }).stdout ?? e);
  }
  expect(complaint).toBe('');
}, 120_000);

test('from CommonJS with npx ca-admin: migrate, init_ca, create_api_user, then a certificate signed through the API', async () => {
  const env = { DATABASE_URL: path.join(dir, 'data'), CA_KEY_ENCRYPTION_KEY: KEK };
  expect(run('npx', ['ca-admin', '--version'], env).trim()).toBe(
    (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
  );
  // The help names the environment it reads, for the program and for each command.
  expect(run('npx', ['ca-admin', '--help'], env)).toMatch(/DATABASE_URL[\s\S]*CA_KEY_ENCRYPTION_KEY/);
  expect(run('npx', ['ca-admin', 'init_ca', '--help'], env)).toMatch(
    /--parent <ca> [^\n]*name or serial[\s\S]*DATABASE_URL[\s\S]*CA_KEY_ENCRYPTION_KEY/,
  );
  run('npx', ['ca-admin', 'migrate'], env);
  const serial = run('npx', ['ca-admin', 'init_ca', '--key-type', 'EC', '--api-enable', 'Scratch', 'CN=Scratch CA'], env)
    .trim()
    .replace(/:/g, '');
  run('npx', ['ca-admin', 'create_api_user', '--all-permissions', '--password', 'scratch-pw', 'scratch'], env);

  fs.writeFileSync(
    path.join(project, 'app.js'),
    `const express = require('express');\nconst { createCaApiRouter, knexStore, openDatabase } = require('express-ca-api');\n(async () => {${APP_BODY}})();\n`,
  );
  const base = await start('app.js', env);
  const api = `${base}/django_ca/api/ca/${serial}`;
  const headers = { Authorization: `Basic ${Buffer.from('scratch:scratch-pw').toString('base64')}`, 'Content-Type': 'application/json' };
  execFileSync(
    'openssl',
    [
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'leaf.key',
      '-out',
      'leaf.csr',
      '-subj',
      '/CN=scratch.example.com',
    ],
    { cwd: dir, stdio: 'pipe' },
  );
  const csr = fs.readFileSync(path.join(dir, 'leaf.csr'), 'utf8');
  const order = (await (
    await fetch(`${api}/sign/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ csr, subject: [{ oid: 'CN', value: 'scratch.example.com' }] }),
    })
  ).json()) as { slug: string };
  let state = { status: 'pending', serial: '' };
  for (let i = 0; i < 100 && state.status === 'pending'; i++) {
    state = (await (await fetch(`${api}/orders/${order.slug}/`, { headers })).json()) as typeof state;
    if (state.status === 'pending') await new Promise((r) => setTimeout(r, 50));
  }
  expect(state.status).toBe('issued');
  const leaf = (await (await fetch(`${api}/certs/${state.serial}/`, { headers })).json()) as { certificate: { pem: string } };
  const ca = (await (await fetch(`${api}/`, { headers })).json()) as { certificate: { pem: string } };
  fs.writeFileSync(path.join(dir, 'leaf.pem'), leaf.certificate.pem);
  fs.writeFileSync(path.join(dir, 'ca.pem'), ca.certificate.pem);
  expect(execFileSync('openssl', ['verify', '-CAfile', 'ca.pem', 'leaf.pem'], { cwd: dir }).toString()).toContain('leaf.pem: OK');
}, 180_000);

test('npm publish --dry-run succeeds, warns about nothing but the login a dry run lacks, and publishes what npm pack packed', () => {
  // The tarball's build is there: nothing to build again (`prepare`). The registry is one that cannot
  // answer, so the dry run shows it needs none.
  const result = spawnSync('npm', ['publish', '--dry-run', '--ignore-scripts', '--json', '--registry', 'http://127.0.0.1:9/'], {
    cwd: clone,
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect({ status: result.status, stderr: result.status === 0 ? '' : result.stderr }).toEqual({ status: 0, stderr: '' });
  const warnings = result.stderr.split('\n').filter((l) => /^npm (warn|WARN|error|ERR)/.test(l));
  expect(warnings.filter((l) => !/requires you to be logged in to .* \(dry-run\)/.test(l))).toEqual([]);
  const published = (JSON.parse(result.stdout) as Record<string, { files: { path: string }[] }>)['express-ca-api'];
  const files = published.files.map((f) => f.path);
  expect([...files].sort()).toEqual([...dryRunFiles].sort());
  const notPublished = (f: string) =>
    !/^(dist\/lib\/|dist\/adapters\/|bin\/|schemas\/)/.test(f) && !['README.md', 'CHANGELOG.md', 'package.json', 'LICENSE'].includes(f);
  expect(files.filter(notPublished)).toEqual([]);
  // Nothing private: no key, certificate, database, archive or dot-file (.env, .npmrc, …).
  expect(files.filter((f) => /\.(pem|key|der|p12|pfx|tgz|tar|sql)$|(^|\/)\.|ca-kek|ca-data/.test(f))).toEqual([]);
}, 120_000);

test('installed as a git dependency: a new app imports it as an ES module, from TypeScript (NodeNext) and from CommonJS', async () => {
  const { error, stderr } = await gitInstall;
  expect({ error: error?.message ?? null, stderr: stderr.split('\n').filter((l) => /npm (error|ERR)/.test(l)) }).toEqual({
    error: null,
    stderr: [],
  });
  // npm ran the package's `prepare` in its clone: the app has the built package, and nothing to build.
  const installed = path.join(gitApp, 'node_modules', 'express-ca-api');
  expect(fs.existsSync(path.join(installed, 'dist', 'lib', 'index.js'))).toBe(true);
  expect(fs.existsSync(path.join(installed, 'lib'))).toBe(false);
  fs.writeFileSync(
    path.join(gitApp, 'esm.mjs'),
    "import { createCaApiRouter } from 'express-ca-api';\nimport { parseCertificate } from 'express-ca-api/x509';\nconsole.log(typeof createCaApiRouter, typeof parseCertificate);\n",
  );
  fs.writeFileSync(
    path.join(gitApp, 'cjs.cjs'),
    "const { createCaApiRouter } = require('express-ca-api');\nconsole.log(typeof createCaApiRouter, require('express-ca-api/package.json').name);\n",
  );
  const node = (file: string) => execFileSync(process.execPath, [file], { cwd: gitApp }).toString().trim();
  expect(node('esm.mjs')).toBe('function function');
  expect(node('cjs.cjs')).toBe('function express-ca-api');
  // TypeScript with NodeNext resolution, through the published types (Node's and Express's lent as above).
  const types = path.join(gitApp, 'node_modules', '@types');
  fs.mkdirSync(types, { recursive: true });
  for (const name of typesWithTheirDependencies(['@types/node', '@types/express'])) {
    if (!fs.existsSync(path.join(types, name.slice('@types/'.length)))) {
      fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(types, name.slice('@types/'.length)));
    }
  }
  fs.writeFileSync(
    path.join(gitApp, 'app.mts'),
    `import express from 'express';
import { createCaApiRouter, type CaApiRouterOptions } from 'express-ca-api';
const options: CaApiRouterOptions = { rest: { enabled: false } };
express().use(createCaApiRouter(options));
`,
  );
  expect(
    run(
      path.join(ROOT, 'node_modules', '.bin', 'tsc'),
      ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', 'app.mts'],
      {},
      gitApp,
    ),
  ).toBe('');
}, 660_000);
