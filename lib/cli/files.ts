/** Reading command input files: a path, or `-` for standard input. */
import { promises as fs } from 'fs';
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
    throw new CaError('invalid', `${path}: Cannot read the ${what}${code === 'ENOENT' ? ': no such file' : ''}.`);
  }
}

export async function writeOutput(path: string, data: string | Buffer): Promise<void> {
  try {
    await fs.writeFile(path, data);
  } catch (e) {
    throw new CaError('invalid', `${path}: Cannot write the file (${(e as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
}

/** Make `path` a directory if it is not one yet, with any missing parents (`mkdir -p`). */
export async function ensureDirectory(path: string): Promise<void> {
  try {
    await fs.mkdir(path, { recursive: true });
  } catch (e) {
    throw new CaError('invalid', `${path}: Cannot create the directory (${(e as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
}
