/**
 * Every command block of the documentation — README.md and every docs/**\/*.md (test/helpers/docs.ts) —
 * runs as written, so that a documentation bug fails CI. Each fenced block must be preceded by a
 * marker that says how it is run, and only what a marker says is left out:
 *
 *   <!-- readme-test: DIRECTIVE; DIRECTIVE … (free text) -->
 *
 * (docs/operations/backup-restore.md marks its blocks `<!-- backup-drill: NAME -->` instead: each is
 * run by test/operations/backup-drill.test.ts, those of point-in-time recovery, `pitr-…`, by
 * test/operations/pitr-drill.test.ts.)
 *
 * - `run` (sh): the block runs with `bash -e` as written, in a fresh clone (test/package/working-copy.ts),
 *   a password typed on stdin for any prompt;
 * - `skip "LINE"` (sh): that line (or `&&`-part) is not run — only the test command, which is what
 *   runs this file;
 * - `serve "COMMAND"` (sh, the block's last command): a long-running server: started with a free
 *   `PORT`, checked over HTTP, then stopped with SIGTERM to the process the block started, which must
 *   take all of its descendants with it (no orphan holding the port);
 * - `module` (ts/js): saved as an ES module (`.mjs`) in the clone, where the package imports itself by
 *   name, and served like `serve`, with the `export`s of the `run` blocks before it (the README says:
 *   same DATABASE_URL, same CA_KEY_ENCRYPTION_KEY) — the API user made there can then use the API;
 * - `acme` (sh): the one-machine ACME recipe, run as written by test/clients/readme-acme.test.ts (it
 *   needs root for /etc/hosts, certbot and lego, as the other client tests do);
 * - `recipe "NAME"` (sh): one of two blocks that go together — the one with `serve "npm start"` starts
 *   the example server (its commands before that run first, as written), the one with `needs "PROGRAMS"`
 *   runs as written in the same folder while the server runs, and must succeed; without the programs
 *   it is skipped, except in CI (test/helpers/binaries.ts). `port "N"`: the port number the blocks
 *   write, replaced by a free one (PORT is that one too), so that the test never collides;
 * - `skip` (any): an illustration that needs parts of a real deployment (an HSM client).
 *
 * Blocks run in README order, then the docs/ files' in path order; a block without a marker, or with a
 * directive not listed here, fails. So does a TypeScript or JavaScript block, run or not, that gives
 * `createCaApiRouter` an option by a deprecated name (lib/options.ts marks them `@deprecated`): the
 * documentation shows the current option shape. And the reference pages are complete: every
 * environment variable the code reads is in docs/reference/environment.md's table, every router
 * option in docs/reference/options.md.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import ts from 'typescript';
import { copyWorkingTree, freePort, ROOT } from './working-copy';
import { describeWith } from '../helpers/binaries';
import { DOC_FILES, docSection, readDoc } from '../helpers/docs';
import { CommandContext } from '../../lib/cli/context';
import { caAdminProgram } from '../../lib/cli/run';
const PASSWORD = 'readme-test-password';

interface Directive {
  name: string;
  arg: string | null;
}
interface Block {
  file: string;
  /** `readme-test`, or `backup-drill` (run by test/operations/backup-drill.test.ts and pitr-drill.test.ts). */
  kind: string | null;
  marker: string | null;
  directives: Directive[];
  lang: string;
  code: string;
  line: number;
}

/** `run; serve "npm start"; skip "npm test" (prose)` → the directives; the prose is ignored. */
function directives(marker: string): Directive[] {
  const out: Directive[] = [];
  const re = /\s*(\w+)(?:\s+"([^"]*)")?\s*(;|\(|$)/y;
  let m: RegExpExecArray | null;
  while ((m = re.exec(marker))) {
    out.push({ name: m[1], arg: m[2] ?? null });
    if (m[3] !== ';') break;
  }
  return out;
}

/**
 * Fenced blocks with the marker comment right before each (or null). A block may be indented (in a
 * list item): its marker is then indented alike, and its lines lose that indentation.
 */
function blocks(file: string, text: string): Block[] {
  const out: Block[] = [];
  const re = /^(?:([ \t]*)<!-- (readme-test|backup-drill): ([^\n]*?) -->\n)?([ \t]*)```(\w*)\n([\s\S]*?)\n[ \t]*```/gm;
  for (const m of text.matchAll(re)) {
    const [kind, marker] = [m[2] ?? null, m[3] ?? null];
    const line = text.slice(0, m.index).split('\n').length + (marker === null ? 0 : 1);
    const indent = m[4];
    const code = m[6]
      .split('\n')
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join('\n');
    const run = kind === 'readme-test' && marker !== null;
    out.push({ file, kind, marker, directives: run ? directives(marker) : [], lang: m[5], code, line });
  }
  return out;
}

const all = DOC_FILES.flatMap((file) => blocks(file, readDoc(file)));
const where = (b: Block) => `${b.file}:${b.line}`;
const KNOWN: Record<string, string[]> = {
  sh: ['run', 'serve', 'skip', 'acme', 'recipe', 'needs', 'port'],
  ts: ['module', 'skip'],
  js: ['module', 'skip'],
};
const has = (b: Block, name: string) => b.directives.some((d) => d.name === name);
const isSkipped = (b: Block) => b.directives.some((d) => d.name === 'skip' && d.arg === null);

let dir: string;
let clone: string;
const children: ChildProcess[] = [];
/** Whether the first block's `npm install` has run in the clone. */
let installed = false;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-'));
  clone = path.join(dir, 'express-ca-api');
  copyWorkingTree(clone);
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('every fenced block of the README and docs/ says how it is tested, in words this test knows', () => {
  expect(DOC_FILES).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/guides/acme.md', 'docs/reference/options.md']));
  expect(all.length).toBeGreaterThanOrEqual(4);
  const problems = all.flatMap((b) => {
    if (b.marker === null) return [`${where(b)}: no readme-test marker before \`\`\`${b.lang}`];
    if (b.kind === 'backup-drill')
      return b.file === 'docs/operations/backup-restore.md' ? [] : [`${where(b)}: a backup-drill marker outside backup-restore.md`];
    if (b.directives.length === 0) return [`${where(b)}: no directive in "${b.marker}"`];
    const known = KNOWN[b.lang] ?? ['skip'];
    return b.directives.filter((d) => !known.includes(d.name)).map((d) => `${where(b)}: unknown directive ${d.name} for ${b.lang}`);
  });
  expect(problems).toEqual([]);
  // The blocks that must be run are run: the two commands, the mounting snippet, the operator commands,
  // the one-machine ACME recipe (test/clients/readme-acme.test.ts), the EST and SCEP client recipes.
  expect(
    all.filter((b) => b.kind === 'readme-test' && !isSkipped(b)).map((b) => `${b.file}: ${b.directives.map((d) => d.name).join(',')}`),
  ).toEqual([
    'README.md: run,serve,skip',
    'README.md: module',
    'README.md: run',
    'docs/guides/acme.md: acme',
    'docs/guides/est.md: recipe,serve,port',
    'docs/guides/est.md: recipe,needs,port',
    'docs/guides/scep.md: recipe,serve,port',
    'docs/guides/scep.md: recipe,needs,port',
  ]);
});

/** The members of interface `name` in `file`, each with whether its JSDoc says `@deprecated`. */
function interfaceMembers(file: string, name: string): { name: string; deprecated: boolean }[] {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!found) throw new Error(`${file} has no interface ${name}`);
  return found.members.flatMap((m) =>
    m.name && ts.isIdentifier(m.name)
      ? [{ name: m.name.text, deprecated: ts.getJSDocTags(m).some((t) => t.tagName.text === 'deprecated') }]
      : [],
  );
}

/** The options `createCaApiRouter` still accepts under a name of before (`@deprecated` in lib/options.ts). */
const DEPRECATED = interfaceMembers('lib/options.ts', 'CaApiRouterOptions')
  .filter((m) => m.deprecated)
  .map((m) => m.name);

/**
 * The deprecated option names a block gives `createCaApiRouter`: the top-level properties of the object
 * literal of each call, or of a variable typed `CaApiRouterOptions`. The block is parsed as TypeScript,
 * which tolerates the fragments' `…`.
 */
function deprecatedOptionsIn(code: string): string[] {
  const source = ts.createSourceFile('block.ts', code, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const check = (node: ts.Node | undefined) => {
    if (!node || !ts.isObjectLiteralExpression(node)) return;
    for (const p of node.properties) {
      // `{ enableRestApi: true }`, `{ 'enableRestApi': true }` and the shorthand `{ enableRestApi }` alike
      const name = p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : null;
      if (name !== null && DEPRECATED.includes(name)) found.push(name);
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'createCaApiRouter')
      check(node.arguments[0]);
    if (
      ts.isVariableDeclaration(node) &&
      node.type &&
      ts.isTypeReferenceNode(node.type) &&
      node.type.getText(source) === 'CaApiRouterOptions'
    ) {
      check(node.initializer);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('no snippet gives createCaApiRouter an option by a deprecated name', () => {
  expect(DEPRECATED).toEqual(expect.arrayContaining(['enableRestApi', 'signInRequest', 'serveRevocation', 'logError']));
  // The check sees what it looks for, in a call and in a typed variable.
  expect(deprecatedOptionsIn('app.use(createCaApiRouter({ enableRestApi: true, store, rest: { orderWaitMs: 0 } }));')).toEqual([
    'enableRestApi',
  ]);
  expect(deprecatedOptionsIn('const o: CaApiRouterOptions = { store, signInRequest: false, … };')).toEqual(['signInRequest']);
  const offenders = all
    .filter((b) => ['ts', 'js', 'typescript', 'javascript'].includes(b.lang))
    .flatMap((b) => deprecatedOptionsIn(b.code).map((name) => `${where(b)}: ${name}`));
  expect(offenders).toEqual([]);
});

/** The variables named in the first column of docs/reference/environment.md's table. */
function documentedVariables(): string[] {
  const rows = readDoc('docs/reference/environment.md')
    .split('\n')
    .filter((l) => l.startsWith('| `'));
  return rows.flatMap((l) => [...l.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]));
}

/** Every environment variable read in `dir` (recursively): `env.NAME`, `env['NAME']`, `…Setting(env, 'NAME'…)`. */
function variablesReadIn(dir: string): string[] {
  const names = new Set<string>();
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(ts|js)$/.test(entry.name)) continue;
    const text = fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8');
    for (const m of text.matchAll(/\benv(?:\.|\[')([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'|'((?:CA|TLS)_[A-Z0-9_]+)'/g))
      names.add(m[1] ?? m[2] ?? m[3]);
  }
  return [...names];
}

test('docs/reference/environment.md has one table with every environment variable the library, ca-admin and the example server read', () => {
  const documented = documentedVariables();
  const read = [...new Set(['lib', 'adapters', 'bin', 'examples/host-server'].flatMap(variablesReadIn))].sort();
  expect(read).toEqual(
    expect.arrayContaining(['CA_KEY_ENCRYPTION_KEY', 'DATABASE_URL', 'CA_ACME_ORDER_VALIDITY', 'CA_HSM_USER_PIN', 'PORT', 'TRUST_PROXY']),
  );
  expect(read.filter((name) => !documented.includes(name))).toEqual([]);
  // … and nothing that none of them reads.
  expect(documented.filter((name) => !read.includes(name))).toEqual([]);
  expect(readDoc('docs/reference/environment.md').match(/^\| variable \|/gm)).toHaveLength(1);
});

test('docs/reference/options.md documents every option of createCaApiRouter and of its EST and SCEP modules', () => {
  const table = (heading: string) =>
    docSection(heading)
      .text.split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => [...l.split('|')[1].matchAll(/`([\w.]+)`/g)].map((m) => m[1]));
  expect(docSection('Options').file).toBe('docs/reference/options.md');
  const router = table('Options');
  const nested = (file: string, name: string, key: string) => interfaceMembers(file, name).map((m) => `${key}.${m.name}`);
  const rest = nested('lib/options-shape.ts', 'RestSettings', 'rest');
  const revocation = nested('lib/options-shape.ts', 'RevocationSettings', 'revocation');
  const flat = new Set(rest.concat(revocation).map((n) => n.split('.')[1]));
  const top = [...interfaceMembers('lib/options.ts', 'CaApiRouterOptions'), ...interfaceMembers('lib/api/options.ts', 'RestApiOptions')]
    .filter((m) => !m.deprecated && !flat.has(m.name) && m.name !== 'rest' && m.name !== 'revocation') // those two: by their members
    .map((m) => m.name);
  expect([...top, ...rest, ...revocation].filter((name) => !router.includes(name))).toEqual([]);
  for (const [heading, file, name] of [
    ['EST settings', 'lib/est/options.ts', 'EstOptions'],
    ['SCEP settings', 'lib/scep/options.ts', 'ScepOptions'],
  ]) {
    const documented = table(heading);
    expect({ heading, missing: interfaceMembers(file, name).filter((m) => !documented.includes(m.name)) }).toEqual({
      heading,
      missing: [],
    });
  }
});

test('docs/reference/cli.md names every ca-admin command', () => {
  const sink = { write: () => true };
  const io = { stdout: sink, stderr: sink, env: { CA_ENABLE_ACME: 'true' } };
  const commands = caAdminProgram(new CommandContext(io), () => async () => undefined).commands.map((c) => c.name());
  expect(commands).toEqual(expect.arrayContaining(['migrate', 'init_ca', 'rotate_kek', 'backup']));
  const page = readDoc('docs/reference/cli.md');
  expect(commands.filter((name) => !new RegExp('`' + name + '[ `]').test(page))).toEqual([]);
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');

/** The anchors of a Markdown file's headings (not of `#` lines in fenced blocks). */
function anchorsOf(file: string): Set<string> {
  const found = new Set<string>();
  let fence = false;
  for (const line of readDoc(file).split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    const m = fence ? null : /^#+ (.*)$/.exec(line);
    if (m) found.add(anchorOf(m[1]));
  }
  return found;
}

test('every relative link of the README and docs/ names a file that exists, and a heading of it', () => {
  const broken = DOC_FILES.flatMap((file) =>
    [
      ...readDoc(file)
        .replace(/```[\s\S]*?```/g, '')
        .matchAll(/\]\(([^)\s]+)\)/g),
    ]
      .map((m) => m[1])
      .filter((target) => !/^(https?|mailto):/.test(target))
      .flatMap((target) => {
        const [link, fragment] = target.split('#');
        const to = link ? path.posix.normalize(path.posix.join(path.posix.dirname(file), link)) : file;
        if (!fs.existsSync(path.join(ROOT, to))) return [`${file}: ${target} (no such file)`];
        return fragment && to.endsWith('.md') && !anchorsOf(to).has(fragment) ? [`${file}: ${target} (no such heading)`] : [];
      }),
  );
  expect(broken).toEqual([]);
  expect(anchorsOf('docs/reference/cli.md')).toContain('one-process-on-the-embedded-database');
});

/** The block's script with `skip "…"` lines removed and the `serve "…"` command last, exec'd. */
function script(block: Block): { code: string; serve: string | null } {
  let lines = block.code.split('\n');
  const strip = (l: string) => l.replace(/\s+#.*$/, '').trim();
  for (const d of block.directives.filter((x) => x.name === 'skip' && x.arg !== null)) {
    const before = lines.length;
    lines = lines.filter((l) => strip(l) !== d.arg);
    if (lines.length === before) throw new Error(`${where(block)}: skip "${d.arg}" matches no line of the block`);
  }
  const serve = block.directives.find((d) => d.name === 'serve')?.arg ?? null;
  if (serve !== null) {
    const last = lines.map(strip).filter(Boolean).pop() ?? '';
    if (!last.endsWith(serve)) throw new Error(`${where(block)}: serve "${serve}" is not the block's last command (${last})`);
    // `exec` so that the process this test signals is the served command itself (npm here).
    const at = lines.map(strip).lastIndexOf(last);
    lines[at] = `${last.slice(0, last.length - serve.length)}exec ${serve}`;
  }
  return { code: lines.join('\n'), serve };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Every process below `pid` (children, grandchildren, …). */
function descendants(pid: number): number[] {
  let kids: number[] = [];
  try {
    kids = execFileSync('pgrep', ['-P', String(pid)])
      .toString()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    // pgrep exits 1 when there are none
  }
  return kids.flatMap((k) => [k, ...descendants(k)]);
}

/**
 * Start `bash -e -c code` as a server on a free PORT, wait until the API answers, call `check`, then
 * SIGTERM the process the block started: it and every descendant must be gone, the port closed.
 */
async function serve(
  what: string,
  code: string,
  check: (base: string) => Promise<void>,
  ready = /(?:)/,
  options: { port?: number; https?: boolean } = {},
): Promise<string> {
  const port = options.port ?? (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const child = spawn('bash', ['-e', '-c', code], {
    cwd: clone,
    env: { ...cleanEnv(), PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  let status = 0;
  for (let i = 0; i < 1500 && (status !== 200 || !ready.test(out)) && child.exitCode === null; i++) {
    await new Promise((r) => setTimeout(r, 200));
    status = options.https
      ? await httpsStatus(`https://127.0.0.1:${port}/django_ca/api/openapi.json`)
      : await fetch(`${base}/django_ca/api/openapi.json`).then(
          (r) => r.status,
          () => 0,
        );
  }
  if (status !== 200 || !ready.test(out))
    throw new Error(`${what}: the API never answered or was never ready (exit ${child.exitCode}):\n${out}`);
  await check(base);

  const below = descendants(child.pid ?? 0);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 30_000)))]);
  clearTimeout(timer);
  for (let i = 0; i < 50 && below.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
  expect({ what, orphans: below.filter(alive) }).toEqual({ what, orphans: [] });
  await expect(fetch(`${base}/`)).rejects.toThrow();
  return out;
}

/**
 * The status of a GET over HTTPS, 0 when it fails. Only whether the server is up: the certificate is
 * the recipe's own (its clients check it), so this probe does not.
 */
function httpsStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = https.get(url, { rejectUnauthorized: false }, (answer) => {
      answer.resume();
      resolve(answer.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
  });
}

/** The `export` lines of the `run` blocks: the environment the README has the reader set up. */
function readmeExports(): string {
  return all
    .filter((b) => b.lang === 'sh' && has(b, 'run'))
    .flatMap((b) => b.code.split('\n').filter((l) => /^export \w+=/.test(l)))
    .join('\n');
}

/** This process's environment without what the README's commands set themselves. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'CA_KEY_ENCRYPTION_KEY', 'CA_DATA_DIR', 'PORT']) delete env[name];
  return env;
}

test('the two commands: npm install && npm start serves the demo; SIGTERM to npm start stops the server, which says so', async () => {
  const block = all.find((b) => has(b, 'serve'));
  expect(block).toBeDefined();
  if (!block) return;
  const { code, serve: served } = script(block);
  expect(served).toBe('npm start');
  expect(code).not.toContain('npm test');
  const out = await serve(
    'npm start',
    code,
    async (base) => {
      installed = true;
      const answer = await fetch(`${base}/`);
      expect(answer.status).toBe(200);
    },
    /--- end ---/, // the demo server's ready line, once its CAs and user exist
  );
  expect(out).toMatch(/express-ca-api example listening on http:\/\/127\.0\.0\.1:\d+/);
  expect(out).toMatch(/SIGTERM: stopping[\s\S]*stopped\./);
}, 420_000);

test('the operator block runs as written (ca-admin migrate, init_ca with --parent, create_api_user)', () => {
  const block = all.find((b) => b.lang === 'sh' && has(b, 'run') && !has(b, 'serve'));
  expect(block).toBeDefined();
  if (!block) return;
  // A reader runs these after the first block's `npm install` (which must build the package); when
  // this test runs without that one, the install is run here.
  if (!installed) execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: clone, stdio: 'pipe' });
  let stderr = '';
  try {
    execFileSync('bash', ['-e', '-c', script(block).code], {
      cwd: clone,
      input: `${PASSWORD}\n`.repeat(4),
      timeout: 240_000,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: cleanEnv(),
    });
  } catch (e) {
    stderr = String((e as { stderr?: Buffer }).stderr ?? e);
  }
  expect(stderr).toBe('');
  const list = execFileSync('bash', ['-e', '-c', `${readmeExports()}\nnpx ca-admin list_cas --tree`], {
    cwd: clone,
    env: cleanEnv(),
  }).toString();
  expect(list).toMatch(/ - Root\n[\s\S]*- Issuing/);
}, 300_000);

test('the mounting snippet runs as an ES module, on the database and key the operator block set up, and signs', async () => {
  const block = all.find((b) => has(b, 'module'));
  expect(block).toBeDefined();
  if (!block) return;
  const operator = all.find((b) => b.lang === 'sh' && has(b, 'run') && b.code.includes('create_api_user'));
  const user = /create_api_user (\S+)/.exec(operator?.code ?? '')?.[1] ?? '';
  fs.writeFileSync(path.join(clone, 'readme-app.mjs'), block.code);
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
      'readme.key',
      '-out',
      'readme.csr',
      '-subj',
      '/CN=readme.example.com',
    ],
    { cwd: clone, stdio: 'pipe' },
  );
  const csr = fs.readFileSync(path.join(clone, 'readme.csr'), 'utf8');
  // The README puts the snippet before the operator block but says: same DATABASE_URL, same key —
  // in a new shell, as a reader would start the app: a key made anew there could not sign.
  await serve('mounting snippet', `${readmeExports()}\nexec node readme-app.mjs`, async (base) => {
    const headers = { Authorization: `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString('base64')}`, 'Content-Type': 'application/json' };
    const cas = (await (await fetch(`${base}/django_ca/api/ca/`, { headers })).json()) as {
      name: string;
      certificate: { serial: string };
    }[];
    expect(cas.map((ca) => ca.name)).toEqual(['Issuing']);
    const api = `${base}/django_ca/api/ca/${cas[0].certificate.serial}`;
    const order = (await (
      await fetch(`${api}/sign/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ csr, subject: [{ oid: 'CN', value: 'readme.example.com' }] }),
      })
    ).json()) as { slug: string };
    let state = { status: 'pending', error: null as string | null };
    for (let i = 0; i < 100 && state.status === 'pending'; i++) {
      state = (await (await fetch(`${api}/orders/${order.slug}/`, { headers })).json()) as typeof state;
      if (state.status === 'pending') await new Promise((r) => setTimeout(r, 100));
    }
    expect(state).toMatchObject({ status: 'issued' });
  });
}, 120_000);

/** The argument of a block's directive, or null. */
const argOf = (b: Block, name: string) => b.directives.find((d) => d.name === name)?.arg ?? null;
const recipes = [...new Set(all.flatMap((b) => (argOf(b, 'recipe') === null ? [] : [argOf(b, 'recipe')!])))];

for (const name of recipes) {
  const server = all.find((b) => argOf(b, 'recipe') === name && has(b, 'serve'));
  const client = all.find((b) => argOf(b, 'recipe') === name && has(b, 'needs'));
  describeWith((client && argOf(client, 'needs')?.split(/\s+/)) || [], `docs recipe "${name}"`, () => {
    test('the server block, then the client block while it serves, run as written', async () => {
      expect({ server: server?.line, client: client?.line }).toEqual({ server: expect.any(Number), client: expect.any(Number) });
      if (!server || !client) return;
      if (!installed) execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: clone, stdio: 'pipe' });
      installed = true;
      const port = await freePort();
      const written = argOf(server, 'port');
      const onPort = (code: string) => (written === null ? code : code.replace(new RegExp(`\\b${written}\\b`, 'g'), String(port)));
      let ran: ReturnType<typeof spawnSync> | null = null;
      await serve(
        `recipe ${name}`,
        onPort(script(server).code),
        async () => {
          ran = spawnSync('bash', ['-e', '-c', onPort(client.code)], { cwd: clone, env: cleanEnv(), timeout: 240_000, encoding: 'utf8' });
        },
        /--- end ---/, // the server's ready line
        { port, https: /TLS_CERT_FILE=/.test(server.code) },
      );
      const { status, stdout, stderr } = ran! as { status: number | null; stdout: string; stderr: string };
      const output = `${stdout}${stderr}`;
      expect({ status, output }).toEqual({ status: 0, output: expect.any(String) });
      // strongSwan's pki exits 0 with a certificate it could not check; the recipe gives it the chain.
      expect(output).not.toMatch(/Issued certificate is not trusted/);
    }, 420_000);
  });
}
