/**
 * Command input and output files: a path, or `-` for standard input.
 *
 * Output files are checked before a command changes anything and written whole or not at all (docs/reference/cli.md:
 * nothing is half-written): `outputFile` refuses a path that cannot be
 * written — a missing or read-only directory, a directory given as the file — while nothing has been
 * issued or published yet, and `write` puts the data into a temporary file beside the target and
 * renames it over the target, so that a failure part-way leaves no partial file.
 */
import { randomBytes } from 'crypto';
import { constants, promises as fs, type Stats } from 'fs';
import { basename, dirname, join } from 'path';
import { CaError } from '../ca/errors';
import { readAll, type CliIo } from './io';

export async function readInput(io: CliIo, path: string, what: string): Promise<Buffer> {
  if (path === '-') {
    if (!io.stdin) throw new CaError('invalid', `Cannot read the ${what} from standard input here.`);
    return readAll(io.stdin);
  }
  try {
    return await fs.readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? ': no such file' : code === 'EISDIR' ? ': it is a directory' : '';
    throw new CaError('invalid', `${path}: Cannot read the ${what}${why}.`);
  }
}

/** A checked output path; `write` replaces the file atomically. */
export interface OutputFile {
  readonly path: string;
  write(data: string | Buffer): Promise<void>;
}

function cannotWrite(path: string, why: string): CaError {
  return new CaError('invalid', `${path}: Cannot write the file: ${why}.`);
}

async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await fs.stat(path);
  } catch (e) {
    // ENOTDIR: a file stands where a directory on the way should be; the directory check names it.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw e;
  }
}

async function writable(path: string): Promise<boolean> {
  try {
    await fs.access(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Check that `path` can be written, before the command acts. An existing regular file is replaced
 * (keeping its mode); a symbolic link is followed; a device or pipe (`/dev/stdout`) is written in
 * place, as renaming over it would replace the device itself.
 */
export async function outputFile(path: string): Promise<OutputFile> {
  let existing: Stats | null;
  let target = path;
  try {
    existing = await statOrNull(path);
    if (existing) target = await fs.realpath(path);
  } catch (e) {
    throw cannotWrite(path, (e as NodeJS.ErrnoException).code ?? 'error');
  }
  if (existing?.isDirectory()) throw cannotWrite(path, 'it is a directory (give a file name)');
  const dir = dirname(target);
  const dirStats = await statOrNull(dir).catch(() => null);
  if (!dirStats) throw cannotWrite(path, `the directory ${dir} does not exist`);
  if (!dirStats.isDirectory()) throw cannotWrite(path, `${dir} is not a directory`);
  if (existing && !existing.isFile()) {
    if (!(await writable(target))) throw cannotWrite(path, 'it is not writable');
    return { path, write: (data) => writeInPlace(path, target, data) };
  }
  if (!(await writable(dir))) throw cannotWrite(path, `the directory ${dir} is not writable`);
  if (existing && !(await writable(target))) throw cannotWrite(path, 'it is not writable');
  const mode = existing ? existing.mode & 0o7777 : undefined;
  return { path, write: (data) => replaceFile(path, target, data, mode) };
}

async function writeInPlace(shown: string, target: string, data: string | Buffer): Promise<void> {
  try {
    await fs.writeFile(target, data);
  } catch (e) {
    throw cannotWrite(shown, (e as NodeJS.ErrnoException).code ?? 'error');
  }
}

/** Write a temporary file in the target's directory (same file system), then rename it over the target. */
async function replaceFile(shown: string, target: string, data: string | Buffer, mode: number | undefined): Promise<void> {
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await fs.writeFile(temporary, data, { flag: 'wx' });
    if (mode !== undefined) await fs.chmod(temporary, mode);
    await fs.rename(temporary, target);
  } catch (e) {
    await fs.rm(temporary, { force: true }).catch(() => undefined);
    throw cannotWrite(shown, (e as NodeJS.ErrnoException).code ?? 'error');
  }
}

/** Make `path` a directory if it is not one yet, with any missing parents (`mkdir -p`), and check it is writable. */
export async function ensureDirectory(path: string): Promise<void> {
  try {
    await fs.mkdir(path, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a file of that name is in the way' : (code ?? 'error');
    throw new CaError('invalid', `${path}: Cannot create the directory (${why}).`);
  }
  if (!(await writable(path))) throw new CaError('invalid', `${path}: Cannot write into the directory: it is not writable.`);
}
