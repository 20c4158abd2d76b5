/**
 * Migrations are frozen text: a shipped migration must do, on every database it ever meets, what it
 * did when it shipped. One that imports another migration's SQL (or its `up`), or derives its own by
 * patching another's text (`.replace` on it), changes silently when the older one is fixed — and a
 * database migrated before the fix then differs from one migrated after it. Checked on the syntax tree
 * of every file of adapters/store/knex/migrations/ but the list (index.ts):
 *
 * - no import (`import … from`, `export … from`, `require()`, `import()`) resolves into the folder;
 * - a migration exports `up` and `down` only, so that there is nothing of it to take;
 * - no `.replace`/`.replaceAll` is applied to text that comes from an import.
 *
 * That the rewritten migrations still build the same schema is the round trip of
 * test/store/migrations-down.test.ts, which compares function bodies too.
 */
import * as fs from 'fs';
import * as path from 'path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const MIGRATIONS = 'adapters/store/knex/migrations';
const LIST = 'index.ts';

/** Every way `file` (a path under the repository, `text` its source) takes from another migration. */
function thawedBy(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const problems: string[] = [];
  const intoMigrations = (spec: string): boolean => {
    if (!spec.startsWith('.')) return false;
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    return resolved === MIGRATIONS || resolved.startsWith(`${MIGRATIONS}/`);
  };
  /** Names bound by imports of this file, and local `const`/`let` initializers by name. */
  const imported = new Set<string>();
  const initializers = new Map<string, ts.Node>();

  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const spec = node.moduleSpecifier.text;
      if (intoMigrations(spec)) problems.push(`imports ${spec}`);
      const clause = ts.isImportDeclaration(node) ? node.importClause : undefined;
      if (clause && !clause.isTypeOnly) {
        if (clause.name) imported.add(clause.name.text);
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) imported.add(bindings.name.text);
        if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) if (!e.isTypeOnly) imported.add(e.name.text);
      }
    }
    if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      const loads = callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require');
      if (loads && intoMigrations(node.arguments[0].text)) problems.push(`imports ${node.arguments[0].text}`);
    }
    if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const spec = node.moduleReference.expression;
      if (ts.isStringLiteral(spec) && intoMigrations(spec.text)) problems.push(`imports ${spec.text}`);
      imported.add(node.name.text);
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer)
      initializers.set(node.name.text, node.initializer);
    ts.forEachChild(node, visit);
  };
  visit(source);

  for (const statement of source.statements) {
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isExportAssignment(statement)) problems.push('exports default');
    else if (ts.isExportDeclaration(statement)) {
      const names =
        statement.exportClause && ts.isNamedExports(statement.exportClause)
          ? statement.exportClause.elements.map((e) => e.name.text)
          : ['*'];
      for (const name of names) if (name !== 'up' && name !== 'down') problems.push(`exports ${name}`);
    } else if (exported) {
      const names = ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.map((d) => d.name.getText(source))
        : [(statement as ts.DeclarationStatement).name?.getText(source) ?? '(unnamed)'];
      for (const name of names) if (name !== 'up' && name !== 'down') problems.push(`exports ${name}`);
    }
  }

  /** Whether `node` reads an imported binding, directly or through the initializers of this file's variables. */
  const fromImport = (node: ts.Node, seen = new Set<string>()): boolean => {
    if (ts.isIdentifier(node)) {
      if (imported.has(node.text)) return true;
      const init = initializers.get(node.text);
      if (init && !seen.has(node.text)) {
        seen.add(node.text);
        return fromImport(init, seen);
      }
      return false;
    }
    return ts.forEachChild(node, (child) => (fromImport(child, seen) ? true : undefined)) ?? false;
  };
  const findReplace = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['replace', 'replaceAll'].includes(node.expression.name.text) &&
      fromImport(node.expression.expression)
    ) {
      problems.push(`patches imported text: ${node.expression.getText(source)}(…)`);
    }
    ts.forEachChild(node, findReplace);
  };
  findReplace(source);
  return problems;
}

const migrationFiles = fs
  .readdirSync(path.join(ROOT, MIGRATIONS))
  .filter((f) => f.endsWith('.ts') && f !== LIST)
  .sort();

describe('migrations are frozen text', () => {
  it('the folder holds the migrations', () => {
    expect(migrationFiles.length).toBeGreaterThan(20);
  });

  it('no migration imports another, exports more than up and down, or patches imported text', () => {
    const found: Record<string, string[]> = {};
    for (const name of migrationFiles) {
      const file = `${MIGRATIONS}/${name}`;
      const problems = thawedBy(file, fs.readFileSync(path.join(ROOT, file), 'utf8'));
      if (problems.length) found[name] = problems;
    }
    expect(found).toEqual({});
  });

  it('the check sees each way of taking from another migration', () => {
    const file = `${MIGRATIONS}/9999_example.ts`;
    const check = (text: string) => thawedBy(file, `import type { Knex } from 'knex';\n${text}`);
    expect(check(`import { A } from './0003_inventory';`)).toEqual(['imports ./0003_inventory']);
    expect(check(`import * as m from './0009_acme_event_actor';`)).toEqual(['imports ./0009_acme_event_actor']);
    expect(check(`const m = require('../migrations/0001_initial');`)).toEqual(['imports ../migrations/0001_initial']);
    expect(check(`export { up } from './0002_revocation';`)).toEqual(['imports ./0002_revocation']);
    expect(check(`export const SQL = 'SELECT 1';`)).toEqual(['exports SQL']);
    expect(check(`export function trigger(): string { return ''; }`)).toEqual(['exports trigger']);
    expect(check(`import { SQL } from '../sql';\nconst a = SQL;\nconst b = a.replace('x', 'y');`)).toEqual([
      'patches imported text: a.replace(…)',
    ]);
    expect(check(`import { sql } from '../sql';\nconst b = sql().replaceAll('x', 'y');`)).toEqual([
      'patches imported text: sql().replaceAll(…)',
    ]);
    // Its own text, and up/down, are its own.
    expect(
      check(
        `const T = 't';\nconst q = T.replace('t', 'u');\nexport async function up(knex: Knex) {}\nexport async function down(knex: Knex) {}`,
      ),
    ).toEqual([]);
  });
});
