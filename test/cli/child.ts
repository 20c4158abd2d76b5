/**
 * Node child processes for the CLI tests: `ca-admin` itself (lib/cli/main.ts) and the fixtures under
 * fixtures/, run from the TypeScript sources (no build needed) through ../helpers/ts-register-cached.js:
 * ts-node's transpile-only mode with a disk cache, because re-transpiling for every process start
 * would make these tests several times slower.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'child_process';
import * as path from 'path';
import { TEST_KEK } from './helpers';

export const ROOT = path.resolve(__dirname, '../..');
const TS_NODE = ['-r', path.join(__dirname, '..', 'helpers', 'ts-register-cached.js')];

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a child: the caller's, a test KEK, and the database to use. */
export function childEnv(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: databaseUrl, CA_KEY_ENCRYPTION_KEY: TEST_KEK, ...extra };
}

/** `ca-admin ARGS` as a real process, to completion. */
export function caAdmin(databaseUrl: string, args: string[], input?: string): ProcessResult {
  const r = spawnSync(process.execPath, [...TS_NODE, path.join(ROOT, 'lib/cli/main.ts'), ...args], {
    cwd: ROOT,
    env: childEnv(databaseUrl),
    input,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Run a TypeScript fixture (path relative to fixtures/) to completion. */
export function runFixture(name: string, args: string[], env: NodeJS.ProcessEnv): ProcessResult {
  const r = spawnSync(process.execPath, [...TS_NODE, path.join(__dirname, 'fixtures', name), ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Start a TypeScript fixture (path relative to fixtures/) as a child process; pipes stay open. */
export function startFixture(name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...TS_NODE, path.join(__dirname, 'fixtures', name), ...args], { cwd: ROOT, env });
}

/** Everything a started child writes, and its exit code, once it has exited. */
export function collect(child: ChildProcessWithoutNullStreams): Promise<ProcessResult> {
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
