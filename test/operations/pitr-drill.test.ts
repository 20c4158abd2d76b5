/**
 * The point-in-time recovery drill of docs/operations/backup-restore.md ("Point-in-time recovery"):
 * every `pitr-…` block of the document runs here as written, on a PostgreSQL cluster this test makes
 * (initdb, a free port, as the user PostgreSQL runs as: `postgres` when the test runs as root, which
 * initdb refuses). The CA issues, revokes and publishes a CRL; archiving on, a base backup; more
 * issued and revoked; a restore point; more after it; the audit log exported; then the recovery to the
 * restore point. The recovered database holds what was there at the restore point (including what
 * only the archived WAL knew) and nothing after it, `ca-admin verify_restore` lists what is missing,
 * its audit chain verifies, its next CRL is numbered above every CRL published before, and a new
 * certificate gets a serial never used.
 *
 * Runs with TEST_DATABASE_URL as the other PostgreSQL tests (describeOnPostgres), and needs the server
 * programs (initdb, pg_ctl, pg_basebackup, pg_verifybackup): in CI (CI=true) their absence fails.
 */
import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import knex from 'knex';
import { TEST_KEK } from '../cli/helpers';
import { tmpDir } from '../cli/openssl';
import { IN_CI, findBinary } from '../helpers/binaries';
import { describeOnPostgres } from '../helpers/database';
import { freePort } from '../package/working-copy';
import {
  afterTheRestore,
  caAdminBin,
  DOC_FILE,
  docBlocks,
  isPitrBlock,
  issue,
  publishCrl,
  revoke,
  serialsOfExport,
  startServer,
  type Seen,
} from './drill';

jest.setTimeout(180_000);

const PROGRAMS = ['initdb', 'pg_ctl', 'psql', 'pg_basebackup', 'pg_verifybackup'];

/** The directory of PostgreSQL's server programs: on PATH, or Debian's /usr/lib/postgresql/VERSION/bin (the newest). */
function serverPrograms(): string | null {
  const onPath = findBinary('pg_ctl');
  const candidates = onPath ? [path.dirname(onPath)] : [];
  const debian = '/usr/lib/postgresql';
  if (fs.existsSync(debian))
    for (const version of fs.readdirSync(debian).sort((a, b) => Number(b) - Number(a))) candidates.push(path.join(debian, version, 'bin'));
  return candidates.find((dir) => PROGRAMS.every((p) => fs.existsSync(path.join(dir, p)))) ?? null;
}

const BIN = serverPrograms();
const AS_ROOT = process.getuid?.() === 0;
/** The operating system user the cluster runs as, and runs the document's PostgreSQL commands. */
const OWNER = AS_ROOT ? 'postgres' : os.userInfo().username;

function ownerIds(): { uid: number; gid: number } | null {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, OWNER], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return null;
  }
}

/** `argv` as the cluster's owner. */
const asOwner = (argv: string[]): string[] => (AS_ROOT ? ['runuser', '-u', OWNER, '--', ...argv] : argv);

const BLOCKS = docBlocks();
const ran = new Set<string>();
let drilled = false;

afterAll(() => {
  // The drill ran every block of "Point-in-time recovery" (and the audit log export of "What to keep").
  if (drilled) expect([...ran].sort()).toEqual([...[...BLOCKS.keys()].filter(isPitrBlock), 'audit-export'].sort());
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

describeOnPostgres('point-in-time recovery drill on a PostgreSQL cluster of its own', () => {
  const ids = ownerIds();
  if (!BIN || !ids) {
    const reason = !BIN
      ? `PostgreSQL's server programs (${PROGRAMS.join(', ')}) not found on PATH or in /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)`
      : `no user ${OWNER} to run PostgreSQL as (root cannot: initdb refuses it)`;
    if (IN_CI)
      test('PostgreSQL server programs and their user', () => {
        throw new Error(`${reason}. CI (CI=true) must run this test: .ci/run installs postgresql.`);
      });
    else test.skip(`skipped: ${reason}`, () => undefined);
    return;
  }

  let work: string;
  let logs: string;
  let port: number;
  let env: Record<string, string>;
  let pgdata: string;

  beforeAll(async () => {
    work = tmpDir('pitr-drill-');
    logs = tmpDir('pitr-drill-logs-');
    fs.chmodSync(work, 0o700);
    fs.chownSync(work, ids.uid, ids.gid);
    port = await freePort();
    pgdata = path.join(work, 'pgdata');
    env = {
      PATH: `${BIN}:${caAdminBin(logs)}:${process.env.PATH}`,
      PGDATA: pgdata,
      ARCHIVE: path.join(work, 'wal-archive'),
      BASE_BACKUP: path.join(work, 'base-backup'),
      PGHOST: work,
      PGPORT: String(port),
      PGUSER: 'postgres',
      PGDATABASE: 'postgres',
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/ca`,
      CA_KEY_ENCRYPTION_KEY: TEST_KEK,
    };
  });

  afterAll(async () => {
    // Whatever runs: the cluster, or the one moved aside by the recovery block.
    for (const dir of [pgdata, `${pgdata}.before-recovery`])
      if (dir && fs.existsSync(path.join(dir, 'postmaster.pid')))
        await command(asOwner([path.join(BIN, 'pg_ctl'), 'stop', '-D', dir, '-m', 'immediate']));
    for (const dir of [work, logs]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** `argv` with the drill's environment, in `work`; its output goes to files (pg_ctl's server inherits them). */
  async function command([program, ...args]: string[], timeoutMs = 120_000): Promise<Ran> {
    const name = `${Date.now()}-${path.basename(program)}`;
    const out = path.join(logs, `${name}.out`);
    const err = path.join(logs, `${name}.err`);
    const fds = [fs.openSync(out, 'w'), fs.openSync(err, 'w')];
    try {
      const child = spawn(program, args, { cwd: work, env: { ...process.env, ...env }, stdio: ['ignore', fds[0], fds[1]] });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await new Promise<number | null>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', (status) => resolve(status));
      }).finally(() => clearTimeout(timer));
      return { code, stdout: fs.readFileSync(out, 'utf8'), stderr: fs.readFileSync(err, 'utf8') };
    } finally {
      for (const fd of fds) fs.closeSync(fd);
    }
  }

  /** A block of the document, as written, with bash -e: PostgreSQL's as the cluster's owner, `ca-admin`'s as this process's user. */
  async function block(name: string, as: 'owner' | 'ca-admin'): Promise<Ran> {
    const code = BLOCKS.get(name);
    if (code === undefined) throw new Error(`${DOC_FILE} has no block ${name}`);
    ran.add(name);
    const argv = ['bash', '-e', '-c', code];
    return command(as === 'owner' ? asOwner(argv) : argv);
  }

  /** Exit status 0, or the failure with what the command said. */
  const expectOk = (r: Ran, what: string) => expect(r.code === 0 ? what : `${what} exited ${r.code}:\n${r.stdout}${r.stderr}`).toBe(what);

  test('archiving, a base backup, a restore point, recovery to it: the CA is as it was then, and nothing goes backwards', async () => {
    // The cluster as an operator has it: initdb, started (the document's blocks take it from there).
    const owner = (argv: string[]) => command(asOwner(argv));
    expectOk(
      await owner([
        path.join(BIN, 'initdb'),
        '-D',
        pgdata,
        '--username=postgres',
        '--auth=trust',
        '--no-locale',
        '--encoding=UTF8',
        '--no-sync',
      ]),
      'initdb',
    );
    fs.appendFileSync(
      path.join(pgdata, 'postgresql.conf'),
      `port = ${port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '${work}'\n`,
    );
    expectOk(await owner([path.join(BIN, 'pg_ctl'), 'start', '-D', pgdata, '-l', path.join(work, 'server.log'), '-w']), 'pg_ctl start');
    expectOk(await block('pitr-archive', 'owner'), 'pitr-archive');
    const admin = knex({ client: 'pg', connection: `postgres://postgres@127.0.0.1:${port}/postgres`, pool: { min: 0, max: 1 } });
    try {
      await admin.raw('CREATE DATABASE ca');
    } finally {
      await admin.destroy();
    }

    const seen: Seen = { crlNumbers: [], serials: new Set() };
    const server = await startServer(env.DATABASE_URL, path.join(work, '.ca-data'));
    const serials: Record<string, string> = {};
    try {
      // In the base backup.
      serials.first = await issue(server, work, 'first', seen);
      serials.second = await issue(server, work, 'second', seen);
      await revoke(server, serials.first);
      await publishCrl(server, seen);
      expectOk(await block('pitr-base-backup', 'owner'), 'pitr-base-backup');
      // After the base backup, before the restore point: only the archived WAL has these.
      serials.third = await issue(server, work, 'third', seen);
      await revoke(server, serials.second);
      await publishCrl(server, seen);
      expectOk(await block('pitr-restore-point', 'owner'), 'pitr-restore-point');
      // After the restore point: lost by the recovery. Several CRLs: a counter recovered would fall behind them.
      serials.fourth = await issue(server, work, 'fourth', seen);
      await revoke(server, serials.third);
      for (let i = 0; i < 2; i++) {
        await publishCrl(server, seen);
        await new Promise((resolve) => setTimeout(resolve, 1100)); // past the CRL cache's version check
        serials[`more${i}`] = await issue(server, work, `more-${i}`, seen);
        await revoke(server, serials[`more${i}`]);
      }
      await publishCrl(server, seen);
      expectOk(await block('audit-export', 'ca-admin'), 'audit-export'); // while the server runs
    } finally {
      await server.close();
    }
    for (const serial of serialsOfExport(path.join(work, 'ca-audit.jsonl'))) seen.serials.add(serial);

    const recovered = await block('pitr-recover', 'owner');
    const log = fs.readFileSync(path.join(work, 'recovery.log'), 'utf8');
    expect({ ...recovered, log }).toMatchObject({ code: 0, stdout: expect.stringMatching(/(^|\n)f\n$/) });

    // verify_restore lists what the lost database did after the restore point.
    const verified = await block('pitr-verify', 'ca-admin');
    expect(verified).toMatchObject({ code: 0, stderr: '' });
    expect(verified.stdout).toMatch(
      /^Restored database checked: audit log intact \(\d+ record\(s\), the newest #\d+ of .*\), 2 CA key\(s\) open, 3 certificate\(s\) issued and 1 revocation\(s\) after the backup missing\.\n/,
    );
    for (const name of ['fourth', 'more0', 'more1'])
      expect(verified.stdout).toMatch(new RegExp(`Certificates issued after the backup[^\\n]*\\n(  .*\\n)*  ${serials[name]} `));
    // (the revocations of certificates it does not hold are not listed again)
    expect(verified.stdout).toMatch(new RegExp(`Revocations after the backup[^\\n]*\\n  ${serials.third} [^\\n]*\\n$`));

    // Served: what was there at the restore point (the base backup's and the archived WAL's), nothing after it.
    await afterTheRestore(env.DATABASE_URL, work, seen, {
      [serials.first]: 'revoked',
      [serials.second]: 'revoked',
      [serials.third]: 'good',
      [serials.fourth]: 'unknown',
      [serials.more0]: 'unknown',
      [serials.more1]: 'unknown',
    });
    // PostgreSQL's own account: it replayed WAL from the archive and stopped at the restore point.
    expect(log).toMatch(/restored log file "[0-9A-F]{24}" from archive/);
    expect(log).toMatch(/recovery stopping at restore point "before-maintenance"/);
    drilled = true;
  });
});
