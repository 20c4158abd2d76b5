/**
 * An embedded database's data directory is private to the user who runs it: the directory and every
 * directory in it 0700, every file 0600, whatever the umask (docs/DESIGN.md "Embedded PGlite: a
 * private data directory"). Whoever can write these files can add an API user or replace a CA.
 *
 * The umask cannot do it. PGlite runs PostgreSQL on Emscripten's file system, mounted on the
 * directory through Node's fs, and Emscripten's open(O_CREAT) chmods a new file to the mode asked
 * for, umask or not. A new cluster's ~970 files are unpacked from PGlite's database image with mode
 * 0666, so they come out 0666 under umask 022 and 077 alike; the files PostgreSQL makes later (WAL
 * segments, relations, new databases) get PostgreSQL's own 0600 and 0700. (process.umask() cannot
 * even be set on the worker thread PGlite runs on, pglite-thread.ts.) So:
 * 1. a new directory is made 0700 before PGlite opens it: from then on nothing in it is reachable by
 *    other users, whatever mode PGlite gives a file;
 * 2. once PGlite has written a new cluster into it, and again whenever it is closed, every entry that
 *    grants group or others anything loses those bits, so that the files' own modes are private too
 *    (a copy or backup that keeps modes, a directory later opened up).
 * Only a private directory (one made here, or one that is 0700 already) is tightened. A directory
 * others may enter was made so by someone — an older version, an operator: it is left as it is, and
 * opening it warns with the command that fixes it.
 */
import * as fs from 'fs';
import * as path from 'path';

const GROUP_AND_OTHERS = 0o077;

/**
 * Makes a missing or empty data directory 0700 (missing parents too); says whether the directory is
 * private, i.e. whether it may be tightened.
 */
export function prepareDataDirectory(directory: string): { private: boolean } {
  const existing = fs.statSync(directory, { throwIfNoEntry: false });
  // An empty directory (an operator's `mkdir` under their umask) holds nothing of anyone's yet: it is
  // made private like a new one.
  if (existing && !(existing.isDirectory() && fs.readdirSync(directory).length === 0)) {
    return { private: (existing.mode & GROUP_AND_OTHERS) === 0 };
  }
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  fs.chmodSync(directory, 0o700); // mkdir's mode passes through the umask, which only ever removes bits; still, say it
  return { private: true };
}

/**
 * Removes group and other permissions from everything under `directory` (symbolic links are left
 * alone). Best effort: what cannot be changed (a file another user owns) is returned, not thrown —
 * the directory itself is what keeps other users out.
 */
export function tightenDataDirectory(directory: string): string[] {
  const failed: string[] = [];
  const visit = (entry: string): void => {
    try {
      const stat = fs.lstatSync(entry, { throwIfNoEntry: false });
      if (!stat || stat.isSymbolicLink()) return; // gone meanwhile, or a link: its target is not ours to change
      if (stat.mode & GROUP_AND_OTHERS) fs.chmodSync(entry, stat.mode & 0o700);
      if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
    } catch (e) {
      failed.push(`${entry}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  visit(directory);
  return failed;
}

/** The warning for a data directory other users may enter, with the command that makes it private. */
export function looseDataDirectoryWarning(directory: string): string | null {
  const stat = fs.statSync(directory, { throwIfNoEntry: false });
  if (!stat || (stat.mode & GROUP_AND_OTHERS) === 0) return null;
  const quoted = /^[\w@%+=:,./-]+$/.test(directory) ? directory : `'${directory.replace(/'/g, `'\\''`)}'`;
  return (
    `Warning: the embedded database in ${directory} is open to other users (mode ${(stat.mode & 0o777).toString(8)}): ` +
    `whoever can write its files can add an API user or change certificates. Make it private: chmod -R go= ${quoted}`
  );
}
