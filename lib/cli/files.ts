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
