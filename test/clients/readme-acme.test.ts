/**
 * ACME on one machine, with no DNS server of one's own: the validator resolves names as the host does
 * (/etc/hosts), so a line there is all a demo name needs (docs/guides/acme.md).
 *
 * - The README's one-machine recipe (the block marked `readme-test: acme`) runs as written, in a
 *   fresh clone (test/package/working-copy.ts): the example server, certbot and lego, openssl verify.
 * - The certbot and lego commands the example server prints work as printed, on the configured
 *   CA_ACME_HTTP01_PORT (lego needs `--accept-tos`, or aborts: "Could not read from console: EOF").
 *
 * Neither sets CA_ACME_DNS_SERVERS: `demo.internal` is known to /etc/hosts only. The line is added
 * (as root, which CI is) and removed afterwards unless it was there before.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { addHostsLine, describeWithHostsFile, HOSTS_FILE, removeHostsLine } from '../helpers/etc-hosts';
import { unusedPort } from '../helpers/sockets';
import { copyWorkingTree, freePort } from '../package/working-copy';
import { describeWith, expectSuccess, opensslVerify, pemCertificates, run, startAcmeExample, type RunResult } from './harness';
import { readDoc } from '../helpers/docs';

jest.setTimeout(420_000);

const NAME = 'demo.internal';
const RECIPE_MARKER = /<!-- readme-test: acme\b[^\n]*-->\n```sh\n([\s\S]*?)\n```/;

/** The machine's /etc/hosts names `demo.internal` already (then it is left as it is). */
const hostsKnowsName = () =>
  fs
    .readFileSync(HOSTS_FILE, 'utf8')
    .split('\n')
    .some((l) => !l.startsWith('#') && l.split(/\s+/).slice(1).includes(NAME));

/**
 * This process's environment without what the recipe sets itself or what would point the validator
 * elsewhere (undefined: left out, by `spawn` and by the harness's `run` alike).
 */
function cleanEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ['DATABASE_URL', 'CA_KEY_ENCRYPTION_KEY', 'CA_DATA_DIR', 'PORT', 'CA_ENABLE_ACME', 'CA_ALLOWED_HOSTS'])
    env[name] = undefined;
  for (const name of Object.keys(env)) if (name.startsWith('CA_ACME_')) env[name] = undefined;
  return env;
}

/** `bash -e -c code` in `cwd` as its own process group, killed whole afterwards (a server it left running included). */
function runScript(code: string, cwd: string, env: Record<string, string | undefined>, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', code], {
      cwd,
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const killGroup = () => {
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch {
        // the group is gone already
      }
    };
    const timer = setTimeout(() => {
      out += `\n[killed after ${timeoutMs} ms]`;
      killGroup();
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      killGroup();
      resolve({ code, out });
    });
  });
}

describeWith(['certbot', 'lego', 'openssl'], 'ACME on one machine', () => {
  describeWithHostsFile('names from /etc/hosts, no DNS server', () => {
    let dir: string;
    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-acme-'));
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    test('the one-machine recipe of docs/guides/acme.md runs as written: certbot and lego get certificates that verify', async () => {
      const recipe = RECIPE_MARKER.exec(readDoc('docs/guides/acme.md'))?.[1];
      expect(recipe).toBeDefined();
      const clone = path.join(dir, 'express-ca-api');
      copyWorkingTree(clone);
      const hadLine = hostsKnowsName();
      let result: RunResult;
      try {
        // PORT as the README's `serve` blocks get it: a free one rather than 8000, which may be taken here.
        result = await runScript(recipe ?? '', clone, { ...cleanEnv(), PORT: String(await freePort()) }, 360_000);
      } finally {
        if (!hadLine) removeHostsLine(`127.0.0.1 ${NAME}`);
      }
      expectSuccess('the one-machine recipe', result);
      expect(result.out).toContain('certbot/live/demo.internal/cert.pem: OK');
      expect(result.out).toContain('lego/certificates/demo.internal.crt: OK');
      // The example server's access log: a file in its data directory (CA_ACCESS_LOG, docs/operations/logs.md).
      const log = fs.readFileSync(path.join(clone, 'acme-demo', 'access.log'), 'utf8');
      expect(log).toMatch(/"path":"\/django_ca\/acme\/[0-9A-F]+\/chall\//); // the challenges were validated by this server
      expect(hostsKnowsName()).toBe(hadLine);
    });

    test('the certbot and lego commands the example server prints work as printed, on CA_ACME_HTTP01_PORT', async () => {
      const http01Port = await unusedPort();
      const example = await startAcmeExample(path.join(dir, 'printed'), { CA_ACME_HTTP01_PORT: String(http01Port) });
      const line = hostsKnowsName() ? null : addHostsLine('127.0.0.1', NAME);
      try {
        const out = example.server.output();
        const certbotLine = /^certbot certonly .*$/m.exec(out)?.[0] ?? '';
        const legoLine = /^lego .*$/m.exec(out)?.[0] ?? '';
        expect(certbotLine).toContain(`--http-01-port ${http01Port} `);
        expect(legoLine).toContain(`--http.port :${http01Port} `);
        expect(legoLine).toContain(' --accept-tos ');

        const home = path.join(dir, 'printed-clients');
        fs.mkdirSync(home);
        // certbot as printed, with its directories under the test's (as root it would write /etc/letsencrypt).
        const certbotDirs = ['config', 'work', 'logs'].map((d) => `--${d}-dir ${path.join(home, 'certbot')}`).join(' ');
        expectSuccess(
          'the printed certbot command',
          await run('bash', ['-c', `${certbotLine} --non-interactive ${certbotDirs}`], { cwd: home, env: cleanEnv() }),
        );
        // lego exactly as printed: its data goes to ./.lego.
        expectSuccess('the printed lego command', await run('bash', ['-c', legoLine], { cwd: home, env: cleanEnv() }));

        const certbotCert = path.join(home, 'certbot/live/demo.internal/cert.pem');
        const legoCert = path.join(home, '.lego/certificates/demo.internal.crt');
        expect(await opensslVerify(example.rootPem, path.join(home, 'certbot/live/demo.internal/chain.pem'), certbotCert)).toBe(
          `${certbotCert}: OK\n`,
        );
        expect(pemCertificates(fs.readFileSync(legoCert, 'utf8'))).toHaveLength(3);
        expect(await opensslVerify(example.rootPem, path.join(home, '.lego/certificates/demo.internal.issuer.crt'), legoCert)).toBe(
          `${legoCert}: OK\n`,
        );
      } finally {
        if (line) removeHostsLine(line);
        await example.stop();
      }
    });
  });
});
