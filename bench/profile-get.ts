// temporary profiling script (not committed)
import { randomBytes } from 'crypto';
import { fork } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as inspector from 'inspector';
const session = new inspector.Session();
session.connect();
const post = (m: string, p?: object) => new Promise<any>((res, rej) => session.post(m, p ?? {}, (e, r) => (e ? rej(e) : res(r))));
async function profiled<T>(fn: () => Promise<T>): Promise<T> {
  if (!process.env.PROF) return fn();
  await post('Profiler.enable'); await post('Profiler.start');
  const r = await fn();
  const { profile } = await post('Profiler.stop');
  fs.writeFileSync(process.env.PROF, JSON.stringify(profile));
  return r;
}
import { startHostServer } from '../examples/host-server/server';
import { forkLoadClient } from './load-client';
async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prof-'));
  const server = await startHostServer({ dataDir, databaseUrl: process.env.PROF_DB ?? dataDir, port: 0, keyEncryptionKey: randomBytes(32).toString('base64'), log: () => undefined });
  const auth = `${server.credentials.username}:${server.credentials.password}`;
  const child = forkLoadClient();
  const job = (j: any) => new Promise<number>((res, rej) => { child.once('message', (r: any) => r.ok ? res(r.perSecond) : rej(new Error(r.error))); child.send(j); });
  const csr = fs.readFileSync('/tmp/prof/csr.pem', 'utf8');
  const mode = process.env.MODE ?? 'get';
  const counts = new Map<string, number>();
  const started = new Map<string, [string, number]>();
  const spent = new Map<string, number>();
  if (process.env.COUNT) {
    const k = (server.store as any).db;
    k.on('query', (q: any) => { const key = String(q.sql).slice(0, 60); counts.set(key, (counts.get(key) ?? 0) + 1); started.set(q.__knexQueryUid, [key, performance.now()]); });
    k.on('query-response', (_r: any, q: any) => { const s = started.get(q.__knexQueryUid); if (s) spent.set(s[0], (spent.get(s[0]) ?? 0) + performance.now() - s[1]); });
  }
  if (mode === 'get') {
    const { call } = require('./load-client');
    const s = await call(`${server.apiRoot}/ca/${server.intermediate.serial}/sign/`, { method: 'POST', auth, body: JSON.stringify({ csr, subject: [{ oid: 'CN', value: 'x.example.com' }] }) });
    const slug = JSON.parse(s.body).slug;
    let serial = '';
    for (;;) { const o = JSON.parse((await call(`${server.apiRoot}/ca/${server.intermediate.serial}/orders/${slug}/`, { auth })).body); if (o.status === 'issued') { serial = o.serial; break; } await new Promise(r => setTimeout(r, 10)); }
    const url = `${server.apiRoot}/ca/${server.intermediate.serial}/certs/${serial}/`;
    console.log('rps', await profiled(() => job({ kind: 'get', url, auth, total: 6000, clients: 32 })));
  } else {
    const { monitorEventLoopDelay } = require('perf_hooks');
    const h = monitorEventLoopDelay({ resolution: 1 }); h.enable();
    console.log('issued/s', await profiled(() => job({ kind: 'issue', apiRoot: server.apiRoot, caSerial: server.intermediate.serial, auth, csr, total: 1500, clients: 32, pollMs: 20 })));
    h.disable(); console.log('loop delay ms p50', h.percentile(50) / 1e6, 'p99', h.percentile(99) / 1e6, 'mean', h.mean / 1e6);
  }
  if (process.env.COUNT) console.log([...counts].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, n]) => [k, n, Math.round(spent.get(k) ?? 0)]));
  await (server.store as any).db.raw('select 42');
  child.send('exit');
  await server.close();
  process.exit(0);
}
main();
