/**
 * An embedded (PGlite) data directory is used by one process at a time: a second opener gets a clear
 * DatabaseInUseError instead of a second writer on the same files, and a lock left by a killed
 * process is taken over.
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DatabaseInUseError, openDatabase } from '../../adapters/store/database';
import { LOCK_FILE_NAME } from '../../adapters/store/directory-lock';

const ROOT = path.resolve(__dirname, '../..');

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'eca-lock-'));
}

/** A child process that opens the directory, says "ready", and holds it until killed. */
function holder(directory: string): Promise<ChildProcess> {
  const script = `
    const { openDatabase } = require('./adapters/store/database');
    openDatabase(${JSON.stringify(directory)}).then(() => process.stdout.write('ready\\n'), (e) => { console.error(e.message); process.exit(2); });
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-r', path.join(ROOT, 'test/helpers/ts-register-cached.js'), '-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => String(d).includes('ready') && resolve(child));
    child.on('exit', (code) => reject(new Error(`holder exited with ${code}: ${err}`)));
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('openDatabase on a PGlite directory', () => {
  test('a second open in the same process is refused until the first is closed', async () => {
    const dir = tmpDir();
    const first = await openDatabase(dir);
    await expect(openDatabase(dir)).rejects.toBeInstanceOf(DatabaseInUseError);
    await first.destroy();
    expect(fs.existsSync(path.join(dir, LOCK_FILE_NAME))).toBe(false);
    const again = await openDatabase(dir);
    expect((await again.raw('select 1 as one')).rows[0].one).toBe(1);
    await again.destroy();
  });

  test('another process holding the directory gives a clear error; after it is killed the lock is taken over', async () => {
    const dir = tmpDir();
    const child = await holder(dir);
    try {
      const error = await openDatabase(dir).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DatabaseInUseError);
      expect((error as DatabaseInUseError).pid).toBe(child.pid);
      expect((error as Error).message).toContain(`in use by process ${child.pid}`);
      expect((error as Error).message).toContain('DATABASE_URL=postgres://');
    } finally {
      await killed(child);
    }
    // kill -9 left the lock file behind, naming a pid that no longer runs.
    expect(fs.existsSync(path.join(dir, LOCK_FILE_NAME))).toBe(true);
    const db = await openDatabase(dir);
    expect((await db.raw('select 1 as one')).rows[0].one).toBe(1);
    await db.destroy();
  }, 120_000);
});
