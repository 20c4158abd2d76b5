/**
 * The SQL statements the example server sends to PostgreSQL, counted inside its process and by the
 * ACME request that caused them: what bench/acme.ts prints as "statements per order" without
 * pg_stat_statements (which a CI cluster does not have).
 *
 * Loaded into the server with `node -r <this file>` (bench/example-server.ts `nodeArgs`) and active
 * only when BENCH_STATEMENT_COUNTS_FILE is set. It wraps `pg`'s `Client.prototype.query` (knex's
 * PostgreSQL driver: every statement, BEGIN and COMMIT included, goes through it) and runs each HTTP
 * request's handling in an AsyncLocalStorage scope named by its ACME request type, so a statement
 * counts to the request whose work issued it. Statements the store groups for several concurrent
 * requests count to the request that started the group; those outside any request (the order runner,
 * timers) count as `(none)`. On SIGUSR2 it writes its counts so far to the file (atomically), which
 * `readStatementCounts` asks for. Nothing in lib/ or adapters/ knows about it.
 */
import { AsyncLocalStorage } from 'async_hooks';
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';

export interface StatementCounts {
  /** Statements by the ACME request type that issued them. */
  statements: Record<string, number>;
  /** Of those, transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE). */
  transactionControl: Record<string, number>;
  /** HTTP requests the server received, by type. */
  requests: Record<string, number>;
}

/** The ACME request type of a request to the example server's ACME routes (lib/acme/routes.ts). */
export function acmeRequestType(method: string, url: string): string {
  const path = url.split('?')[0];
  if (/\/directory\//.test(path)) return 'directory';
  if (/\/new-nonce\/$/.test(path)) return 'new-nonce';
  if (method !== 'POST') return 'other';
  const patterns: [RegExp, string][] = [
    [/\/new-account\/$/, 'new-account'],
    [/\/new-order\/$/, 'new-order'],
    [/\/order\/[^/]+\/finalize\/$/, 'finalize'],
    [/\/order\/[^/]+\/$/, 'order poll'],
    [/\/authz\/[^/]+\/$/, 'authz'],
    [/\/chall\/[^/]+\/$/, 'challenge'],
    [/\/cert\/[^/]+\/$/, 'certificate'],
  ];
  return patterns.find(([re]) => re.test(path))?.[1] ?? 'other';
}

/** Ask the server process `pid` for its counts (SIGUSR2), waiting for the file it writes. */
export async function readStatementCounts(pid: number, file: string, timeoutMs = 5000): Promise<StatementCounts> {
  fs.rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (const end = Date.now() + timeoutMs; Date.now() < end;) {
    await new Promise((r) => setTimeout(r, 20));
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as StatementCounts;
  }
  throw new Error(`the server (pid ${pid}) wrote no statement counts to ${file} in ${timeoutMs} ms`);
}

/** `after - before`, per key. */
export function countsSince(after: StatementCounts, before: StatementCounts): StatementCounts {
  const minus = (a: Record<string, number>, b: Record<string, number>) =>
    Object.fromEntries(Object.entries(a).map(([k, n]) => [k, n - (b[k] ?? 0)]));
  return {
    statements: minus(after.statements, before.statements),
    transactionControl: minus(after.transactionControl, before.transactionControl),
    requests: minus(after.requests, before.requests),
  };
}

function install(file: string): void {
  const scope = new AsyncLocalStorage<string>();
  const counts: StatementCounts = { statements: {}, transactionControl: {}, requests: {} };
  const add = (into: Record<string, number>, key: string) => (into[key] = (into[key] ?? 0) + 1);

  for (const Server of [http.Server, https.Server]) {
    const emit = Server.prototype.emit as (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;
    Server.prototype.emit = function (this: unknown, event: string | symbol, ...args: unknown[]): boolean {
      if (event !== 'request') return emit.call(this, event, ...args);
      const req = args[0] as http.IncomingMessage;
      const type = acmeRequestType(req.method ?? '', req.url ?? '');
      add(counts.requests, type);
      return scope.run(type, () => emit.call(this, event, ...args));
    };
  }

  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pg = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]): unknown {
    const type = scope.getStore() ?? '(none)';
    add(counts.statements, type);
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? '');
    if (/^\s*(begin|commit|rollback|savepoint|release)\b/i.test(text)) add(counts.transactionControl, type);
    return query.apply(this, args);
  };

  process.on('SIGUSR2', () => {
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(counts));
    fs.renameSync(`${file}.tmp`, file);
  });
}

if (process.env.BENCH_STATEMENT_COUNTS_FILE) install(process.env.BENCH_STATEMENT_COUNTS_FILE);
