/**
 * Every command block of README.md runs as written, so that a README bug fails CI. Each fenced block
 * must be preceded by a marker that says how it is run, and only what a marker says is left out:
 *
 *   <!-- readme-test: DIRECTIVE; DIRECTIVE … (free text) -->
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
 * - `skip` (any): an illustration that needs parts of a real deployment (an HSM client).
 *
 * Blocks run in README order; a block without a marker, or with a directive not listed here, fails.
 */
import { execFileSync, spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { copyWorkingTree, freePort, ROOT } from './working-copy';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const PASSWORD = 'readme-test-password';

interface Directive {
  name: string;
  arg: string | null;
}
interface Block {
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

/** Fenced blocks with the marker comment right before each (or null). */
function blocks(text: string): Block[] {
  const out: Block[] = [];
  const re = /(?:<!-- readme-test: ([^\n]*?) -->\n)?```(\w*)\n([\s\S]*?)\n```/g;
  for (const m of text.matchAll(re)) {
    const marker = m[1] ?? null;
    const line = text.slice(0, m.index).split('\n').length;
    out.push({ marker, directives: marker ? directives(marker) : [], lang: m[2], code: m[3], line });
  }
  return out;
}

const all = blocks(README);
const KNOWN: Record<string, string[]> = { sh: ['run', 'serve', 'skip', 'acme'], ts: ['module', 'skip'], js: ['module', 'skip'] };
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

test('every fenced block of the README says how it is tested, in words this test knows', () => {
  expect(all.length).toBeGreaterThanOrEqual(4);
  const problems = all.flatMap((b) => {
    if (b.marker === null) return [`line ${b.line}: no readme-test marker before \`\`\`${b.lang}`];
    if (b.directives.length === 0) return [`line ${b.line}: no directive in "${b.marker}"`];
    const known = KNOWN[b.lang] ?? ['skip'];
    return b.directives.filter((d) => !known.includes(d.name)).map((d) => `line ${b.line}: unknown directive ${d.name} for ${b.lang}`);
  });
  expect(problems).toEqual([]);
  // The blocks that must be run are run: the two commands, the operator commands, the mounting snippet,
  // the one-machine ACME recipe (test/clients/readme-acme.test.ts).
  expect(all.filter((b) => !isSkipped(b)).map((b) => b.directives.map((d) => d.name).join(','))).toEqual([
    'run,serve,skip',
    'module',
    'run',
    'acme',
  ]);
});

/** The block's script with `skip "…"` lines removed and the `serve "…"` command last, exec'd. */
function script(block: Block): { code: string; serve: string | null } {
  let lines = block.code.split('\n');
  const strip = (l: string) => l.replace(/\s+#.*$/, '').trim();
  for (const d of block.directives.filter((x) => x.name === 'skip' && x.arg !== null)) {
    const before = lines.length;
    lines = lines.filter((l) => strip(l) !== d.arg);
    if (lines.length === before) throw new Error(`line ${block.line}: skip "${d.arg}" matches no line of the block`);
  }
  const serve = block.directives.find((d) => d.name === 'serve')?.arg ?? null;
  if (serve !== null) {
    const last = lines.map(strip).filter(Boolean).pop() ?? '';
    if (!last.endsWith(serve)) throw new Error(`line ${block.line}: serve "${serve}" is not the block's last command (${last})`);
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
async function serve(what: string, code: string, check: (base: string) => Promise<void>, ready = /(?:)/): Promise<string> {
  const port = await freePort();
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
    status = await fetch(`${base}/django_ca/api/openapi.json`).then(
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
