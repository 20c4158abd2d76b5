/**
 * Every command block of README.md runs as written, so that a README bug fails CI. Each fenced block
 * must be preceded by a `<!-- readme-test: … -->` marker saying how it is run; an unmarked block fails
 * this test. The blocks run in a copy of the repository's files (node_modules lent by symlink):
 *
 * - the "two commands": `npm install && npm start` — installed, started, checked over HTTP, then
 *   stopped with SIGTERM sent to `npm start`, which must not leave the server running (no orphan);
 *   `npm test` is the suite that runs this file and is not run again;
 * - the operator block (ca-admin): run with bash as written, the password typed on stdin;
 * - the mounting snippet: run as an ES module that imports the package by its name, then stopped;
 * - `skip` blocks are illustrations that need parts of a real deployment (an HSM client).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

interface Block {
  marker: string | null;
  lang: string;
  code: string;
}

/** Fenced blocks with the marker comment right before each (or null). */
function blocks(text: string): Block[] {
  const out: Block[] = [];
  const re = /(?:<!-- readme-test: ([^\n]*?) -->\n)?```(\w*)\n([\s\S]*?)\n```/g;
  for (const m of text.matchAll(re)) out.push({ marker: m[1] ?? null, lang: m[2], code: m[3] });
  return out;
}

const all = blocks(README);
let dir: string;
let clone: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-'));
  clone = path.join(dir, 'express-ca-api');
  fs.mkdirSync(clone);
  const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
    .toString()
    .split('\0')
    .filter(Boolean);
  for (const file of tracked) {
    if (!fs.existsSync(path.join(ROOT, file))) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(clone, file));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('every command block of the README says how it is tested', () => {
  expect(all.length).toBeGreaterThanOrEqual(4);
  expect(all.filter((b) => b.marker === null).map((b) => b.code.split('\n')[0])).toEqual([]);
});

function waitFor(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 180_000): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: timed out:\n${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (pattern.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (!pattern.test(out)) reject(new Error(`${what}: exited with ${code}:\n${out}`));
    });
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('the two commands: npm install && npm start serves the demo; SIGTERM to npm start stops the server', async () => {
  const block = all.find((b) => b.code.includes('npm start'));
  expect(block?.marker).toMatch(/npm start/);
  const lines = (block?.code ?? '').split('\n').map((l) => l.replace(/\s+#.*$/, '').trim());
  expect(lines).toEqual(['npm install && npm start', 'npm test']);
  const [install, startCmd] = lines[0].split(' && ');
  // `&&`: the install must succeed before the start.
  const installed = spawnSync('bash', ['-c', install], { cwd: clone, encoding: 'utf8', timeout: 300_000 });
  expect({ status: installed.status, stderr: installed.status === 0 ? '' : installed.stderr }).toEqual({ status: 0, stderr: '' });
  const npm = spawn('bash', ['-c', `exec ${startCmd}`], {
    cwd: clone,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = await waitFor(npm, /--- end ---/, 'npm start');
  const url = /listening on (http:\/\/localhost:\d+)/.exec(out)?.[1] ?? '';
  expect((await fetch(`${url}/django_ca/api/openapi.json`)).status).toBe(200);

  // The server is npm's child; a SIGTERM to npm must reach it and end it.
  const serverPid = Number(
    execFileSync('pgrep', ['-P', String(npm.pid)])
      .toString()
      .trim()
      .split('\n')[0],
  );
  const stopped = waitFor(npm, /stopped\./, 'server stop', 30_000);
  npm.kill('SIGTERM');
  expect(await stopped).toMatch(/SIGTERM: stopping/);
  for (let i = 0; i < 50 && alive(serverPid); i++) await new Promise((r) => setTimeout(r, 100));
  expect(alive(serverPid)).toBe(false);
  await expect(fetch(`${url}/`)).rejects.toThrow();
}, 420_000);

test('the operator block runs as written (ca-admin migrate, init_ca with --parent, create_api_user)', () => {
  const block = all.find((b) => b.code.includes('npx ca-admin init_ca'));
  expect(block?.marker).toMatch(/run as written/);
  const run = spawnSync('bash', ['-e', '-c', block?.code ?? ''], {
    cwd: clone,
    input: 'alice-password\n',
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, DATABASE_URL: '', CA_KEY_ENCRYPTION_KEY: '' },
  });
  expect({ status: run.status, stderr: run.stderr.replace(/npm warn[^\n]*\n/g, '') }).toEqual({
    status: 0,
    stderr: expect.not.stringMatching(/Error/),
  });
  const list = execFileSync('npx', ['ca-admin', 'list_cas', '--tree'], {
    cwd: clone,
    env: {
      ...process.env,
      DATABASE_URL: './ca-data',
      CA_KEY_ENCRYPTION_KEY: fs.readFileSync(path.join(clone, 'ca-kek.txt'), 'utf8').trim(),
    },
  }).toString();
  expect(list).toMatch(/ - Root\n[\s\S]*- Issuing/);
}, 300_000);

test('the mounting snippet runs as an ES module', async () => {
  const block = all.find((b) => b.lang === 'ts' && b.code.includes('createCaApiRouter({'));
  expect(block?.marker).toMatch(/ES module/);
  fs.writeFileSync(path.join(clone, 'readme-app.mjs'), block?.code ?? '');
  const app = spawn(process.execPath, ['readme-app.mjs'], {
    cwd: clone,
    env: { ...process.env, DATABASE_URL: 'memory://', CA_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = await fetch('http://127.0.0.1:8000/django_ca/api/openapi.json').then(
        (r) => r.status,
        () => 0,
      );
      if (app.exitCode !== null) break;
    }
    expect(status).toBe(200);
  } finally {
    app.kill('SIGTERM');
  }
}, 120_000);
