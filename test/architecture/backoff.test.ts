/**
 * One back-off for every kind of background work (docs/DESIGN.md "Back-off"): the exponential wait
 * — two raised to a counted number of attempts — is computed in lib/work/backoff.ts only, so that a
 * runner cannot grow its own copy without a cap or jitter again. Constants such as `2 ** 48` are not
 * back-off and pass.
 */
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const HOME = 'lib/work/backoff.ts';
/** `2 ** n` or `Math.pow(2, n)` with an exponent that is not a number written out. */
const EXPONENTIAL = /\b2\s*\*\*\s*[A-Za-z_(]|Math\.pow\(\s*2\s*,\s*[A-Za-z_(]/;

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(path.join(ROOT, dir))) return [];
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

test('exponential back-off is computed in lib/work/backoff.ts only', () => {
  const files = ['lib', 'adapters', 'examples'].flatMap(sourceFiles);
  const offenders = files.flatMap((f) =>
    fs
      .readFileSync(path.join(ROOT, f), 'utf8')
      .split('\n')
      .flatMap((line, i) => (EXPONENTIAL.test(line) && f !== HOME ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
  );
  expect(offenders).toEqual([]);
  // The pattern sees the one formula there is (so an empty list above means something).
  expect(fs.readFileSync(path.join(ROOT, HOME), 'utf8')).toMatch(EXPONENTIAL);
});
