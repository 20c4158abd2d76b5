/**
 * The router on a PostgreSQL address where nothing listens (docs/operations/hostile-clients-and-outages.md "Outages"): connecting is refused
 * at once, as while a server restarts. What it logs is kept in `logged`; and what knex or anything
 * else writes to the console meanwhile in `console`, which should stay empty: the outage is the
 * library's to report, once.
 */
import { randomBytes } from 'crypto';
import express from 'express';
import knex, { type Knex } from 'knex';
import { defaultKeyBackend } from '../../adapters/keys';
import { knexConfig, parseDatabaseUrl } from '../../adapters/store/database';
import { createCaApiRouter, knexStore, type CaApiRouter, type CaApiRouterOptions } from '../../lib';
import { idleOrderRunner } from './http';

/** Nothing listens on port 1. The password must not show up in anything logged. */
export const DEAD_DATABASE_URL = 'postgres://nobody:secret@127.0.0.1:1/nothing';

export interface DeadDatabaseApp {
  db: Knex;
  router: CaApiRouter;
  app: express.Express;
  /** Messages given to the router's `logError`. */
  logged: string[];
  /** Lines written with console.log/warn/error since the start. */
  console: string[];
  close(): Promise<void>;
}

export function routerOnDeadDatabase(options: Partial<CaApiRouterOptions> = {}): DeadDatabaseApp {
  const lines: string[] = [];
  const spies = (['log', 'warn', 'error'] as const).map((name) =>
    jest.spyOn(console, name).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' '))),
  );
  const db = knex(knexConfig(parseDatabaseUrl(DEAD_DATABASE_URL)));
  const logged: string[] = [];
  const router = createCaApiRouter({
    enableRestApi: true,
    store: knexStore(db),
    keyBackends: { default: defaultKeyBackend({ keyEncryptionKey: randomBytes(32) }) },
    orderRunner: idleOrderRunner(),
    logError: (message) => logged.push(message),
    ...options,
  });
  const app = express().use(router);
  return {
    db,
    router,
    app,
    logged,
    console: lines,
    close: async () => {
      await router.close();
      await db.destroy();
      for (const spy of spies) spy.mockRestore();
    },
  };
}
