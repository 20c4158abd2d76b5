/**
 * A fresh clone of the repository as a user gets it, made from the working tree: every file git
 * tracks or would track (so uncommitted edits count, ignored files such as dist/ do not), with the
 * repository's node_modules lent by symlink (what `npm ci` would install) unless `nodeModules: false`
 * (a copy to commit to a git repository of its own). Nothing is built.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '../..');

export function copyWorkingTree(dest: string, { nodeModules = true } = {}): void {
  fs.mkdirSync(dest, { recursive: true });
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
    .toString()
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    const stat = fs.lstatSync(path.join(ROOT, file), { throwIfNoEntry: false });
    if (!stat?.isFile() || file.split('/')[0] === 'node_modules') continue; // deleted in the working tree, or not a file
    fs.mkdirSync(path.dirname(path.join(dest, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(dest, file));
  }
  if (nodeModules) fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dest, 'node_modules'));
}

/** A TCP port that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
