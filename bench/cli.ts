/**
 * `ca-admin` benchmark: wall time and peak memory of real `ca-admin` processes on an embedded (PGlite)
 * database, what an operator waits for at the shell:
 *
 * - `list_cas` and `view_ca` on a database holding one CA;
 * - `migrate` on a new directory (PGlite's initdb, then every migration) and on an up-to-date database;
 * - `list_cas` against a running example server (examples/host-server, what `npm start` runs) that holds
 *   the embedded database: the "in use" error (docs/reference/cli.md "One process on the embedded database").
 *
 *   npm run bench:cli
 *
 * Each command runs BENCH_RUNS times (default 5), in a new process each time; printed: the median wall
 * time (process start to exit, measured by the bench), the median CPU time (user + system, every
 * thread: the steadier figure on a busy machine) and the largest peak RSS (the child's own
 * `process.resourceUsage()`, written at exit by a preload).
 *
 * BENCH_CA_ADMIN: comma-separated entry scripts to compare (default this build's lib/cli/main.js), e.g.
 * the `bin/ca-admin.js` of a build of another commit: their runs are interleaved command by command, so
 * that a shared, noisy machine slows them alike, and the ratio to the first one is printed.
 */
import { spawnSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { startExampleServer } from './example-server';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ENTRIES = (process.env.BENCH_CA_ADMIN ?? path.join(__dirname, '../lib/cli/main.js')).split(',').map((e) => path.resolve(e));
const KEK = randomBytes(32).toString('base64');

/** Writes the process's peak RSS (KiB) and CPU time (µs, user + system) to BENCH_RSS_FILE when it exits. */
const RSS_PRELOAD =
  `process.on('exit', () => { const u = process.resourceUsage(); ` +
  `require('fs').writeFileSync(process.env.BENCH_RSS_FILE, JSON.stringify([u.maxRSS, u.userCPUTime + u.systemCPUTime])); });\n`;

interface Run {
  ms: number;
  rssKiB: number;
  cpuMs: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

function caAdmin(work: string, entry: string, databaseUrl: string, args: string[]): Run {
  const rssFile = path.join(work, 'rss');
  fs.rmSync(rssFile, { force: true });
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, CA_KEY_ENCRYPTION_KEY: KEK, BENCH_RSS_FILE: rssFile };
  delete env.CA_DATA_DIR;
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-r', path.join(work, 'rss-preload.js'), entry, ...args], { env, encoding: 'utf8', cwd: work });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.error) throw r.error;
  const [rssKiB, cpuUs] = fs.existsSync(rssFile) ? (JSON.parse(fs.readFileSync(rssFile, 'utf8')) as number[]) : [NaN, NaN];
  return { ms, rssKiB, cpuMs: cpuUs / 1000, code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Case {
  name: string;
  /** Runs once per run and entry; `check` says what is wrong with its outcome, or null. */
  run(entry: string, i: number): Run;
  check(r: Run): string | null;
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cli-'));
  fs.writeFileSync(path.join(work, 'rss-preload.js'), RSS_PRELOAD);
  const data = path.join(work, 'one-ca');
  const serverDir = path.join(work, 'server');
  let stopServer: (() => Promise<void>) | null = null;
  try {
    const init = caAdmin(work, ENTRIES[0], data, [
      'init_ca',
      '--key-type',
      'Ed25519',
      '--no-default-hostname',
      'Bench',
      'CN=bench.example.com',
    ]);
    if (init.code !== 0) throw new Error(`init_ca failed: ${init.stderr}`);
    const serial = init.stdout.trim();
    const server = await startExampleServer({ CA_DATA_DIR: serverDir }, work);
    stopServer = () => server.stop();
    const ok = (r: Run) => (r.code === 0 ? null : `exit ${r.code}: ${r.stderr.trim()}`);
    const cases: Case[] = [
      {
        name: 'list_cas',
        run: (e) => caAdmin(work, e, data, ['list_cas']),
        check: (r) => ok(r) ?? (r.stdout.includes(serial) ? null : 'CA not listed'),
      },
      { name: 'view_ca', run: (e) => caAdmin(work, e, data, ['view_ca', serial]), check: ok },
      { name: 'migrate (up to date)', run: (e) => caAdmin(work, e, data, ['migrate']), check: ok },
      {
        name: 'migrate (new database)',
        run: (e, i) => caAdmin(work, e, path.join(work, `new-${ENTRIES.indexOf(e)}-${i}`), ['migrate']),
        check: ok,
      },
      {
        name: 'list_cas, database in use',
        run: (e) => caAdmin(work, e, serverDir, ['list_cas']),
        check: (r) =>
          r.code === 1 && /in use by process/.test(r.stderr) ? null : `expected the in-use error, got exit ${r.code}: ${r.stderr}`,
      },
    ];
    console.log(
      `ca-admin, ${RUNS} runs each, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    for (const c of cases) {
      const runs = ENTRIES.map(() => [] as Run[]);
      for (let i = 0; i < RUNS; i++)
        ENTRIES.forEach((entry, k) => {
          const r = c.run(entry, i);
          const problem = c.check(r);
          if (problem) throw new Error(`${c.name} (${entry}): ${problem}`);
          runs[k].push(r);
        });
      const base = median(runs[0].map((r) => r.ms));
      const baseCpu = median(runs[0].map((r) => r.cpuMs));
      for (const [k, entry] of ENTRIES.entries()) {
        const ms = median(runs[k].map((r) => r.ms));
        const cpu = median(runs[k].map((r) => r.cpuMs));
        const rss = Math.max(...runs[k].map((r) => r.rssKiB)) / 1024;
        const ratio = ENTRIES.length > 1 ? `  (wall ${(ms / base).toFixed(2)}×, CPU ${(cpu / baseCpu).toFixed(2)}× the first)` : '';
        console.log(
          `${c.name.padEnd(26)} median ${ms.toFixed(0).padStart(6)} ms wall ${cpu.toFixed(0).padStart(6)} ms CPU  max RSS ${rss.toFixed(0).padStart(4)} MiB  ${entry}${ratio}`,
        );
      }
    }
    console.log(
      `load average after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await stopServer?.();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
