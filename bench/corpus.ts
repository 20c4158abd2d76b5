/**
 * Certificates to parse in bench/x509.ts: every `*.pem` of a directory — by default the shared test
 * corpus beside the repository, or `BENCH_CORPUS_DIR`. The bench reads files itself rather than
 * borrowing the test suite's helpers.
 */
import * as fs from 'fs';
import * as path from 'path';

/** The repository root, whether this runs from bench/ (ts-node) or from dist-bench/bench/ (tsc output). */
const repoRoot = path.resolve(__dirname, path.basename(path.dirname(__dirname)) === 'dist-bench' ? '../..' : '..');

export function corpusPems(dir = process.env.BENCH_CORPUS_DIR ?? path.resolve(repoRoot, '../shared/corpus/certs')): string[] {
  if (!fs.existsSync(dir)) throw new Error(`${dir}: no certificate directory (set BENCH_CORPUS_DIR to a folder of *.pem files)`);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.pem'))
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
}
