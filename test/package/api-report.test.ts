/**
 * The public API is a list, not whatever lib/ports happens to export: the names each entry point of
 * package.json's `exports` exports (with their kinds) are docs/api-report.md, committed, so that a
 * change to them shows in review — and docs/reference/exports.md documents each of them.
 *
 * After a deliberate change to the public API: `UPDATE_API_REPORT=1 npx jest
 * test/package/api-report.test.ts` rewrites docs/api-report.md; commit it, name the new exports in
 * docs/reference/exports.md (and a removed one in CHANGELOG, as a breaking change).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';
import { apiReport, ENTRIES, exportedNames, REPORT_FILE, ROOT } from './api-report';
import { readDoc } from '../helpers/docs';

const names = exportedNames();

test('the exports of every entry point are the committed API report (docs/api-report.md)', () => {
  const report = apiReport(names);
  if (process.env.UPDATE_API_REPORT === '1') fs.writeFileSync(REPORT_FILE, report);
  const committed = fs.existsSync(REPORT_FILE) ? fs.readFileSync(REPORT_FILE, 'utf8') : '';
  // On a difference: the public API changed. If that was meant, update the report (see above).
  expect(report).toBe(committed);
});

test('docs/reference/exports.md names every exported name', () => {
  const readme = readDoc('docs/reference/exports.md');
  const mentioned = new Set(readme.match(/[A-Za-z_$][\w$]*/g));
  for (const [specifier, exported] of Object.entries(names)) {
    const missing = exported.map((e) => e.name).filter((name) => !mentioned.has(name));
    expect({ specifier, missing }).toEqual({ specifier, missing: [] });
  }
});

test('the package entry is bounded: none of the internals the ports hold for the library itself', () => {
  const main = new Set(names['express-ca-api'].map((e) => e.name));
  for (const internal of ['hasIssuedOrders', 'DEFAULT_ACME_POLICY', 'resolveOptions', 'NO_METRICS', 'WebhookStore', 'AcmeStore']) {
    expect(main.has(internal)).toBe(false);
  }
  expect(main.has('createCaApiRouter')).toBe(true);
});

test('the package entry only lists exports: the wiring is lib/wiring.ts', () => {
  const file = path.join(ROOT, 'lib', 'index.ts');
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const other = source.statements.filter((s) => !ts.isExportDeclaration(s)).map((s) => ts.SyntaxKind[s.kind]);
  expect(other).toEqual([]);
  // Named exports only: `export *` would publish whatever the module it names adds later.
  const starred = source.statements.filter((s) => ts.isExportDeclaration(s) && !s.exportClause).map((s) => s.getText(source));
  expect(starred).toEqual([]);
});

test("the report covers every entry point of package.json's exports", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { types?: string }>;
  };
  const entries = Object.entries(manifest.exports)
    .filter(([, target]) => typeof target === 'object' && target.types)
    .map(([subpath, target]) => [
      path.posix.join(manifest.name, subpath),
      (target as { types: string }).types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts'),
    ]);
  expect(Object.fromEntries(entries)).toEqual(ENTRIES);
});
