/**
 * One process at a time for an embedded PGlite data directory.
 *
 * PGlite is PostgreSQL in WebAssembly without a postmaster: two processes that open the same data
 * directory both write to it, and the second one's view is stale at best and corrupt at worst. The
 * typical way to get there is an operator running `ca-admin` while the example server holds
 * `./.ca-data`. A lock file inside the directory, holding the owner's pid, turns that into a clear
 * error. A lock left behind by a process that died (kill -9, power loss) names a pid that no longer
 * runs and is taken over.
 */
import * as fs from 'fs';
import * as path from 'path';

export const LOCK_FILE_NAME = 'express-ca-api.lock';

export class DatabaseInUseError extends Error {
  readonly code = 'database-in-use' as const;
  constructor(
    readonly directory: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${directory} is in use by ${pid === process.pid ? 'this process' : `process ${pid}`}. ` +
        'An embedded (PGlite) database serves one process at a time: stop the process that holds it ' +
        '(for example the example host server) and try again, or use PostgreSQL ' +
        '(DATABASE_URL=postgres://...), which any number of processes can share.',
    );
    this.name = 'DatabaseInUseError';
  }
}

export interface DirectoryLock {
  release(): void;
}

/** Directories this process holds: a second open in the same process is refused as well. */
const held = new Set<string>();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else — still running.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(lockPath: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockPath, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export function acquireDirectoryLock(directory: string): DirectoryLock {
  if (held.has(directory)) throw new DatabaseInUseError(directory, process.pid);
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 }); // private, as database.ts makes it
  const lockPath = path.join(directory, LOCK_FILE_NAME);
  // Two attempts: the second after removing a lock whose owner is gone.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx', 0o600); // fails if the file exists: creation is the lock
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = readOwner(lockPath);
      if (owner !== null && owner !== process.pid && isRunning(owner)) throw new DatabaseInUseError(directory, owner);
      if (attempt === 1) throw new DatabaseInUseError(directory, owner ?? 0);
      fs.rmSync(lockPath, { force: true }); // stale: its owner died without releasing it
    }
  }
  held.add(directory);
  const releaseOnExit = (): void => release();
  function release(): void {
    if (!held.delete(directory)) return;
    process.removeListener('exit', releaseOnExit);
    if (readOwner(lockPath) === process.pid) fs.rmSync(lockPath, { force: true });
  }
  process.on('exit', releaseOnExit);
  return { release };
}
