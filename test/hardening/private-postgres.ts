/**
 * A PostgreSQL server of the test's own (initdb in a temporary directory, its own port), which the
 * test may stop and restart without disturbing the shared server other test files use at the same
 * time. Needs the server binaries (Debian: package `postgresql`, as .ci/run installs); PostgreSQL
 * refuses to run as root, so under root it runs as the `postgres` user.
 */
import { execFile, execFileSync } from 'child_process';
import { promisify } from 'util';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { freePort } from '../package/working-copy';

/** The newest installed server's bin directory, or null. */
export function postgresBinDir(): string | null {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return null;
  const versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'pg_ctl')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0], 'bin') : null;
}

export class PrivatePostgres {
  private constructor(
    private readonly bin: string,
    readonly dir: string,
    readonly port: number,
  ) {}

  /** `postgres://postgres@127.0.0.1:PORT/DB` (trust authentication, local only). */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  static async start(): Promise<PrivatePostgres> {
    const bin = postgresBinDir();
    if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'private-pg-'));
    fs.chmodSync(dir, 0o755);
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
    const pg = new PrivatePostgres(bin, dir, await freePort());
    pg.run('initdb', ['-D', path.join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '--no-sync']);
    pg.ctl('start');
    return pg;
  }

  /**
   * A restart that keeps the server down for `downMs`: `pg_ctl stop -m fast` (sessions are ended at
   * once, as in a failover or an upgrade), a pause, `pg_ctl start`. Asynchronous, so that the test's
   * own clients go on sending requests meanwhile.
   */
  async restart(downMs: number): Promise<void> {
    const run = promisify(execFile);
    await run(...this.command('pg_ctl', this.ctlArgs('stop')), { timeout: 60_000 });
    await new Promise((r) => setTimeout(r, downMs));
    await run(...this.command('pg_ctl', this.ctlArgs('start')), { timeout: 60_000 });
  }

  stop(): void {
    try {
      this.ctl('stop');
    } finally {
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }

  private ctl(action: 'start' | 'stop'): void {
    this.run('pg_ctl', this.ctlArgs(action));
  }

  private ctlArgs(action: 'start' | 'stop'): string[] {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    return ['-D', path.join(this.dir, 'data'), '-l', path.join(this.dir, 'log'), '-m', 'fast', '-w', '-o', options, action];
  }

  /** The program and its arguments, through `runuser` when we are root. */
  private command(program: string, args: string[]): [string, string[]] {
    const command = path.join(this.bin, program);
    return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  }

  private run(program: string, args: string[]): void {
    const [command, all] = this.command(program, args);
    execFileSync(command, all, { stdio: 'pipe', timeout: 60_000 });
  }
}
