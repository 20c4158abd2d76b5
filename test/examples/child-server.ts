/**
 * The example host server as a child process (node -r ../helpers/ts-register-cached.js), for tests
 * that need a real process: walk the printed flow, kill it mid-order, restart it on the same data.
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { seedPgliteDirectory } from '../helpers/pglite-snapshot';

export const SERVER = path.resolve(__dirname, '../../examples/host-server/server.ts');
const ROOT = path.resolve(__dirname, '../..');
/** Checks the child's API responses against the OpenAPI document (see the preload's comment). */
/** Runs the TypeScript sources with a disk cache of the transpiled files (see its comment). */
export const TS_REGISTER = path.resolve(__dirname, '../helpers/ts-register-cached.js');
const RESPONSE_CHECK = path.resolve(__dirname, '../helpers/response-validator-preload.ts');
const VERDICT = /^\[response-validator\] (validated|skipped|violation) (.*)$/gm;

/** Children started by the running test, whose response verdicts its afterEach reads. */
const started: { output(): string }[] = [];
afterEach(() => {
  const violations: string[] = [];
  let validated = 0;
  for (const child of started.splice(0)) {
    for (const m of child.output().matchAll(VERDICT)) {
      if (m[1] === 'validated') validated++;
      if (m[1] === 'violation') violations.push(JSON.parse(m[2]) as string);
    }
  }
  const stats = process.env.RESPONSE_VALIDATOR_STATS;
  if (stats)
    fs.appendFileSync(
      stats,
      `${JSON.stringify({ file: expect.getState().testPath, child: true, validated, violations: violations.length })}\n`,
    );
  if (violations.length)
    throw new Error(
      `${violations.length} response(s) of the child server do not match the OpenAPI document:\n  ${violations.join('\n  ')}`,
    );
});

/** A started example server before its output is read: the process and everything it printed so far. */
export interface StartedChild {
  child: ChildProcess;
  output(): string;
}

export interface ChildServer extends StartedChild {
  apiRoot: string;
  username: string;
  password: string;
  caSerial: string;
}

/**
 * Start the example server; resolves once `ready(output)` holds, rejects if it exits first (with its
 * output: a start that fails says why). `spawned` gets the process at once, for a test that must be
 * able to kill it before it is ready.
 */
export interface StartOptions {
  /**
   * false: leave a new CA_DATA_DIR empty (a test that checks what a failed start leaves there).
   * Default true: a migrated PGlite database is copied in first (see startChild).
   */
  seedDatabase?: boolean;
}

export async function startChild(
  env: Record<string, string>,
  ready: (out: string) => boolean,
  timeoutMs = 60_000,
  spawned?: (child: ChildProcess) => void,
  options: StartOptions = {},
): Promise<StartedChild> {
  // A new data directory holding its own PGlite database gets a migrated one copied in: the child
  // resumes it instead of running initdb (test/helpers/pglite-snapshot.ts says why). The first start
  // on a new directory itself is what test/store/data-directory-modes.test.ts and the README test run.
  if (options.seedDatabase !== false && env.CA_DATA_DIR && !env.DATABASE_URL && !process.env.DATABASE_URL)
    await seedPgliteDirectory(env.CA_DATA_DIR);
  const child = spawn(process.execPath, ['-r', TS_REGISTER, '-r', RESPONSE_CHECK, SERVER], {
    cwd: env.CA_DATA_DIR ?? ROOT,
    env: {
      ...process.env,
      PORT: '0',
      TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json'),
      RESPONSE_VALIDATOR_API_ROOT: '/django_ca/api/',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned?.(child);
  let out = '';
  started.push({ output: () => out });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${out}`));
    }, timeoutMs);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    };
    child.on('exit', onExit);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (!ready(out)) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ child, output: () => out });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
}

/** Start the example server; resolves once it printed its walk-through. */
export async function startChildServer(env: Record<string, string>, timeoutMs = 60_000, options: StartOptions = {}): Promise<ChildServer> {
  const { child, output } = await startChild(env, (out) => out.includes('--- end ---'), timeoutMs, undefined, options);
  const out = output();
  const api = /^API='([^']+)'$/m.exec(out);
  const user = /username: (\S+)/.exec(out);
  const pass = /password: (\S+)/.exec(out);
  const ca = /^CA='([0-9A-F]+)'$/m.exec(out);
  if (!api || !user || !pass || !ca) {
    await stopChild(child);
    throw new Error(`unexpected output:\n${out}`);
  }
  return { child, output, apiRoot: api[1], username: user[1], password: pass[1], caSerial: ca[1] };
}

export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
