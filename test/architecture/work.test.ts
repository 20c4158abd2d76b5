/**
 * The work engine's parts each in one place (docs/DESIGN.md "Work engine", "Back-off"):
 * - one back-off: the exponential wait — two raised to a counted number of attempts — is computed in
 *   lib/work/backoff.ts only, so that a runner cannot grow its own copy without a cap or jitter again
 *   (constants such as `2 ** 48` are not back-off and pass);
 * - one lease: the store's code locks with `SKIP LOCKED` and reads or writes lease columns in
 *   adapters/store/knex/jobs.ts (the background jobs, docs/DESIGN.md "Background jobs") only — every
 *   kind of background work is a job since migrations 0034 and 0035 — (the migrations, which make
 *   those columns, aside), so that a new kind of work takes its claim, lease and release from there
 *   instead of writing them again; and the jobs have one claim statement.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

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

const JOBS_HOME = 'adapters/store/knex/jobs.ts';
/** A lock that passes over locked rows, or a lease column (`lease_owner`, `lease_expires`, `lease_until`). */
const LEASE = /skip\s*locked|skipLocked|\blease_(owner|expires|until)\b/i;

/** The file's text without its comments: what runs, strings and SQL included. */
function codeOf(text: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const parts: string[] = [];
  while (scanner.scan() !== ts.SyntaxKind.EndOfFileToken) parts.push(scanner.getTokenText());
  return parts.join(' ');
}

test('SKIP LOCKED and lease columns are in adapters/store/knex/jobs.ts only; the jobs have one claim', () => {
  const files = ['lib', 'adapters', 'examples'].flatMap(sourceFiles).filter((f) => !f.includes('/migrations/'));
  const offenders = files.filter((f) => f !== JOBS_HOME && LEASE.test(codeOf(fs.readFileSync(path.join(ROOT, f), 'utf8'))));
  expect(offenders).toEqual([]);
  // The pattern sees the lease code there is, and comments do not count.
  expect(codeOf(fs.readFileSync(path.join(ROOT, JOBS_HOME), 'utf8')).match(/skip\s*locked/gi)).toHaveLength(1);
  expect(codeOf('// FOR UPDATE SKIP LOCKED\nconst a = 1;')).not.toMatch(LEASE);
  expect(codeOf('const sql = `x FOR UPDATE SKIP LOCKED`;')).toMatch(LEASE);
});

test('every kind of background work is claimed through the jobs: no store code of its own leases rows', () => {
  // REST orders (migration 0035) and ACME's validations, issuances and expiry (0034) are jobs: their
  // one claim is the jobs' (adapters/store/knex/jobs.ts); the lease helpers they had are gone.
  expect(fs.existsSync(path.join(ROOT, 'adapters/store/knex/work.ts'))).toBe(false);
  const code = ['lib', 'adapters', 'examples'].flatMap(sourceFiles);
  expect(code.length).toBeGreaterThan(100);
  const offenders = code.filter((f) =>
    /claimLeases|retryLeaseAt|leaseFree|claimPendingOrders/.test(codeOf(fs.readFileSync(path.join(ROOT, f), 'utf8'))),
  );
  expect(offenders).toEqual([]);
});
