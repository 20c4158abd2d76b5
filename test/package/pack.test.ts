/**
 * What `npm pack` would publish must work for a consumer: build, pack, unpack the tarball into a
 * throw-away node_modules that sees our dependencies, then load it with a plain `require` and a plain
 * `import` from a separate Node process.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');

describe('npm pack', () => {
  let consumerDir: string;

  beforeAll(() => {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'pipe' });
    const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'eca-pack-'));
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', packDir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    }).toString();
    const [{ filename }] = JSON.parse(out) as { filename: string }[];
    // Inside the repository's node_modules so that the package's own dependencies resolve, as they
    // would for a consumer who installed it.
    consumerDir = fs.mkdtempSync(path.join(ROOT, 'node_modules', '.pack-consumer-'));
    const pkgDir = path.join(consumerDir, 'node_modules', 'express-ca-api');
    fs.mkdirSync(pkgDir, { recursive: true });
    execFileSync('tar', ['-xzf', path.join(packDir, filename), '-C', pkgDir, '--strip-components=1']);
    fs.rmSync(packDir, { recursive: true, force: true });
  }, 180_000);

  afterAll(() => {
    if (consumerDir) fs.rmSync(consumerDir, { recursive: true, force: true });
  });

  it('ships compiled JavaScript, declarations and schemas, and no sources or tests', () => {
    const pkgDir = path.join(consumerDir, 'node_modules', 'express-ca-api');
    expect(fs.existsSync(path.join(pkgDir, 'dist/lib/index.js'))).toBe(true);
    expect(fs.existsSync(path.join(pkgDir, 'dist/lib/index.d.ts'))).toBe(true);
    expect(fs.existsSync(path.join(pkgDir, 'test'))).toBe(false);
    expect(fs.existsSync(path.join(pkgDir, 'lib'))).toBe(false);
  });

  it('loads with require()', () => {
    const script = `const m = require('express-ca-api'); const x = require('express-ca-api/x509');
      if (typeof m.createCaApiRouter !== 'function') throw new Error('createCaApiRouter missing');
      if (typeof x.parseCertificate !== 'function') throw new Error('parseCertificate missing');
      console.log('ok');`;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: consumerDir }).toString();
    expect(out.trim()).toBe('ok');
  });

  it('loads with import', () => {
    const file = path.join(consumerDir, 'consumer.mjs');
    fs.writeFileSync(
      file,
      `import { createCaApiRouter } from 'express-ca-api';
       import { parseCertificate } from 'express-ca-api/x509';
       if (typeof createCaApiRouter !== 'function' || typeof parseCertificate !== 'function') throw new Error('missing');
       console.log('ok');`,
    );
    const out = execFileSync(process.execPath, [file], { cwd: consumerDir }).toString();
    expect(out.trim()).toBe('ok');
  });
});
