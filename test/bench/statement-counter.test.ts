/**
 * bench/statement-counter.ts, which bench:acme loads into the example server to print its SQL statements
 * per order and per ACME request type: the request types of our ACME URLs (lib/acme/routes.ts), and, on
 * PostgreSQL, a real process with the counter preloaded whose HTTP handlers run knex statements after
 * reading their bodies (as Express does), asked for its counts with SIGUSR2.
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { acmeRequestType, readStatementCounts } from '../../bench/statement-counter';
import { describeOnPostgres } from '../helpers/database';

const ROOT = path.join(__dirname, '../..');

describe('acmeRequestType', () => {
  it('names each ACME route by its request type', () => {
    const base = '/acme/4F2A/';
    expect(acmeRequestType('HEAD', `${base}new-nonce/`)).toBe('new-nonce');
    expect(acmeRequestType('GET', `${base}new-nonce/`)).toBe('new-nonce');
    expect(acmeRequestType('POST', `${base}new-account/`)).toBe('new-account');
    expect(acmeRequestType('POST', `${base}new-order/`)).toBe('new-order');
    expect(acmeRequestType('POST', `${base}order/abc/`)).toBe('order poll');
    expect(acmeRequestType('POST', `${base}order/abc/finalize/`)).toBe('finalize');
    expect(acmeRequestType('POST', `${base}authz/abc/`)).toBe('authz');
    expect(acmeRequestType('POST', `${base}chall/abc/`)).toBe('challenge');
    expect(acmeRequestType('POST', `${base}cert/abc/`)).toBe('certificate');
    expect(acmeRequestType('GET', '/acme/directory/4F2A/')).toBe('directory');
    expect(acmeRequestType('POST', `${base}revoke/`)).toBe('other');
    expect(acmeRequestType('GET', `${base}order/abc/`)).toBe('other');
  });
});

describeOnPostgres('the statement counter in a server process', (target) => {
  let dir: string;
  let child: ChildProcess;
  let port: number;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statement-counter-'));
    const script = path.join(dir, 'server.ts');
    fs.writeFileSync(
      script,
      `
      import * as http from 'http';
      import { openDatabase } from ${JSON.stringify(path.join(ROOT, 'adapters/store/database'))};
      void (async () => {
        const db = await openDatabase(process.env.URL);
        await db.raw('select 0'); // outside any request
        const server = http.createServer(async (req, res) => {
          for await (const _ of req) void _; // the body read first: the statements run in I/O callbacks
          if ((req.url ?? '').includes('new-order')) {
            await db.transaction(async (trx) => {
              await trx.raw('select 1');
              await trx.raw('select 2');
            });
          } else await db.raw('select 3');
          res.end('ok');
        });
        server.listen(0, '127.0.0.1', () => console.log('PORT ' + (server.address() as { port: number }).port));
      })();
      `,
    );
    child = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-r', path.join(ROOT, 'bench/statement-counter.ts'), script],
      {
        cwd: ROOT,
        env: { ...process.env, URL: target.url, BENCH_STATEMENT_COUNTS_FILE: path.join(dir, 'counts.json') },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /PORT (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code})`)));
    });
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const post = (url: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: url, method: 'POST' }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end('{"payload":"x"}');
    });

  it('counts each statement, BEGIN and COMMIT included, to the request that issued it', async () => {
    await post('/acme/4F2A/new-order/');
    await post('/acme/4F2A/new-order/');
    await post('/acme/4F2A/chall/abc/');
    const counts = await readStatementCounts(child.pid!, path.join(dir, 'counts.json'));
    expect(counts.requests).toEqual({ 'new-order': 2, challenge: 1 });
    expect(counts.statements['new-order']).toBe(8); // BEGIN, select 1, select 2, COMMIT, twice
    expect(counts.transactionControl['new-order']).toBe(4);
    expect(counts.statements.challenge).toBe(1);
    expect(counts.statements['(none)']).toBeGreaterThanOrEqual(1);
  }, 30_000);
});
