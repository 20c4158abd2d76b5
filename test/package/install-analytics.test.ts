/**
 * No analytics at install (docs/CONTRIBUTING.md "Development"): the API docs' swagger-ui-dist depends on
 * @scarf/scarf, whose postinstall script (report.js) POSTs install details to scarf.sh unless the
 * root package or a package on the way to it says `"scarfSettings": { "enabled": false }` (or the
 * environment says SCARF_ANALYTICS=false). Our package.json says so. npm 11 runs no install script
 * that package.json's `allowScripts` does not name, which already keeps report.js from running here;
 * this covers older npm and other package managers.
 *
 * report.js runs for real, as its postinstall would (INIT_CWD = the project being installed), in a
 * scratch project holding our package.json and the repository's node_modules; SCARF_LOCAL_PORT,
 * report.js's own switch for its developers, sends what it would send to scarf.sh to a server on
 * 127.0.0.1 instead. With our package.json nothing arrives; with the setting removed, the report does.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { ROOT } from './working-copy';

const REPORT = path.join(ROOT, 'node_modules/@scarf/scarf/report.js');
const ourPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;

let dir: string;
let server: http.Server;
let port: number;
const received: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eca-scarf-'));
  server = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * report.js's postinstall run, but for one thing: it gives `npm ls` 3 s, which a busy machine can
 * exceed (report.js then gives up silently). Its exported getDependencyInfo, meant to be replaced in
 * its own tests, is replaced by the same `npm ls` without the limit, parsed by report.js's own
 * processDependencyTreeOutput; every decision after that is report.js's.
 */
const RUN_REPORT = `
const { exec } = require('child_process');
const report = require(process.argv[1]);
report.getDependencyInfo = () => new Promise((resolve, reject) =>
  exec('npm ls @scarf/scarf --json --long', { cwd: process.env.INIT_CWD, maxBuffer: 1 << 30 }, report.processDependencyTreeOutput(resolve, reject)));
report.reportPostInstall().catch((e) => console.error(String(e))).finally(() => process.exit(0));
`;

/** Runs report.js as npm's postinstall would for a project with this package.json; the requests it made. */
async function reportFor(name: string, packageJson: Record<string, unknown>): Promise<string[]> {
  const project = path.join(dir, name);
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify(packageJson, null, 2));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'));
  const env: NodeJS.ProcessEnv = { ...process.env, INIT_CWD: project, SCARF_LOCAL_PORT: String(port) };
  for (const optOut of ['SCARF_ANALYTICS', 'SCARF_NO_ANALYTICS', 'DO_NOT_TRACK', 'SCARF_API_TOKEN']) delete env[optOut];
  // npx/npm test put their own npm_* settings (local prefix = this checkout) into the environment:
  // `npm ls` would read this checkout instead of the project.
  for (const key of Object.keys(env)) if (key.toLowerCase().startsWith('npm_')) delete env[key];
  received.length = 0;
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, ['-e', RUN_REPORT, REPORT], { cwd: project, env, timeout: 120_000 }, (e) => (e ? reject(e) : resolve())),
  );
  return [...received];
}

test('package.json turns Scarf off for this package', () => {
  expect(ourPackage.scarfSettings).toEqual({ enabled: false });
});

test("@scarf/scarf's report.js, run for our package.json, reports nothing", async () => {
  expect(await reportFor('ours', ourPackage)).toEqual([]);
}, 150_000);

test('without the setting report.js would have reported (the check above can fail)', async () => {
  const { scarfSettings: _dropped, ...without } = ourPackage;
  expect(await reportFor('without-setting', without)).toEqual(['POST /package-event/install']);
}, 150_000);
