/**
 * The example host server stops on SIGINT (Ctrl-C) and SIGTERM (`kill`): it says so, closes the HTTP
 * server, the order runner and the database, and exits 0 — the port is free and the data directory can
 * be opened again at once. (That `npm start` passes the signal on and leaves no orphan is
 * test/package/readme-commands.test.ts.)
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { startChildServer } from './child-server';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'host-signals-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test.each(['SIGINT', 'SIGTERM'] as const)('%s: says it stops, stops, exits 0 and frees the port', async (signal) => {
  const env = { CA_DATA_DIR: path.join(dir, 'data') };
  fs.mkdirSync(env.CA_DATA_DIR, { recursive: true });
  const server = await startChildServer(env);
  const base = new URL(server.apiRoot).origin;
  expect((await fetch(`${base}/`)).status).toBe(200);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    server.child.once('exit', (code, sig) => resolve({ code, signal: sig })),
  );
  server.child.kill(signal);
  expect(await exited).toEqual({ code: 0, signal: null });
  const out = server.output();
  expect(out.slice(out.indexOf('--- end ---'))).toMatch(new RegExp(`\\n${signal}: stopping \\(order runner, database\\)…\\nstopped\\.\\n`));
  await expect(fetch(`${base}/`)).rejects.toThrow();
});
