/**
 * A test that needs PostgreSQL is declared with `describeOnPostgres` (test/helpers/database.ts): skipped
 * where TEST_DATABASE_URL is not set, but failed in CI (`CI=true`, where .ci/run starts PostgreSQL),
 * so that a CI without its database is seen, not green. A test file that chooses `describe.skip`,
 * `test.skip` or `it.skip` itself on whether there is a PostgreSQL — `(pg ? describe : describe.skip)`,
 * `isPostgresUrl(target.url) ? test : test.skip` — skips silently in that CI: the multi-instance tests
 * among them, which nothing else runs. Checked on the syntax tree of every file under test/: the
 * condition that picks a `.skip` (the nearest `?:` or `if` around it), followed through the file's own
 * variables and functions, may not read TEST_DATABASE_URL or tell PostgreSQL from PGlite.
 */
import * as fs from 'fs';
import * as path from 'path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
/** The one place that may: the shared helper. */
const HELPER = 'test/helpers/database.ts';
/** What reveals a choice on PostgreSQL: the variable, the target list, the URL test, the target's name. */
const ON_POSTGRES = /TEST_DATABASE_URL|testDatabaseTargets|isPostgresUrl|['"]postgres(ql)?['"]/;
const RUNNERS = new Set(['describe', 'test', 'it']);
const X_RUNNERS = new Set(['xdescribe', 'xtest', 'xit']);

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(rel));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out.sort();
}

/** The skips of `text` chosen on PostgreSQL: `line: condition` for each. */
function skipsOnPostgres(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  /** The file's variables and functions by name: what a condition's names stand for. */
  const definitions = new Map<string, ts.Node[]>();
  const define = (name: string, node: ts.Node) => definitions.set(name, [...(definitions.get(name) ?? []), node]);
  const skips: ts.Node[] = [];
  const collect = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) define(node.name.text, node.initializer);
    if (ts.isFunctionDeclaration(node) && node.name && node.body) define(node.name.text, node.body);
    if (
      ts.isPropertyAccessExpression(node) &&
      node.name.text === 'skip' &&
      ts.isIdentifier(node.expression) &&
      RUNNERS.has(node.expression.text)
    )
      skips.push(node);
    if (ts.isIdentifier(node) && X_RUNNERS.has(node.text)) skips.push(node);
    ts.forEachChild(node, collect);
  };
  collect(source);

  /** The text of `node` and of everything its names stand for in this file. */
  const expanded = (node: ts.Node, seen = new Set<string>()): string => {
    let text = node.getText(source);
    const visit = (n: ts.Node): void => {
      if (ts.isIdentifier(n) && !seen.has(n.text)) {
        seen.add(n.text);
        for (const d of definitions.get(n.text) ?? []) text += `\n${expanded(d, seen)}`;
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
    return text;
  };
  /** The condition that picks the branch `node` is in: the nearest `?:` or `if` around it. */
  const conditionOf = (node: ts.Node): ts.Expression | null => {
    for (let child = node, parent = node.parent; parent; child = parent, parent = parent.parent) {
      if (ts.isConditionalExpression(parent) && child !== parent.condition) return parent.condition;
      if (ts.isIfStatement(parent) && child !== parent.expression) return parent.expression;
    }
    return null;
  };

  const found: string[] = [];
  for (const skip of skips) {
    const condition = conditionOf(skip);
    if (!condition || !ON_POSTGRES.test(expanded(condition))) continue;
    const line = source.getLineAndCharacterOfPosition(skip.getStart(source)).line + 1;
    found.push(`${line}: ${condition.getText(source)}`);
  }
  return found;
}

describe('tests that need PostgreSQL use describeOnPostgres', () => {
  it('no test file chooses a skip on PostgreSQL by itself', () => {
    const found: Record<string, string[]> = {};
    for (const file of testFiles('test')) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      if (file === HELPER || !/\.skip\b|\bx(describe|test|it)\b/.test(text)) continue;
      const skips = skipsOnPostgres(file, text);
      if (skips.length) found[file] = skips;
    }
    expect(found).toEqual({});
  });

  it('the check sees the ways a file picks a skip on PostgreSQL, and lets others be', () => {
    const check = (text: string) => skipsOnPostgres('test/x/example.test.ts', text).map((s) => s.replace(/^\d+: /, ''));
    expect(
      check(`const pg = testDatabaseTargets().find((t) => t.name === 'postgresql');\n(pg ? describe : describe.skip)('x', () => {});`),
    ).toEqual(['pg']);
    expect(check(`const url = process.env.TEST_DATABASE_URL;\nconst d = url ? describe : describe.skip;`)).toEqual(['url']);
    expect(check(`(isPostgresUrl(target.url) ? it : it.skip)('x', async () => {});`)).toEqual(['isPostgresUrl(target.url)']);
    expect(check(`(target.name === 'postgresql' ? test : test.skip)('x', async () => {});`)).toEqual(["target.name === 'postgresql'"]);
    expect(check(`function has() { return !!process.env.TEST_DATABASE_URL; }\nif (!has()) { describe.skip('x', () => {}); }`)).toEqual([
      '!has()',
    ]);
    expect(check(`const s = (t: string) => (process.env.TEST_DATABASE_URL ? describe(t, () => {}) : xdescribe(t, () => {}));`)).toEqual([
      'process.env.TEST_DATABASE_URL',
    ]);
    // Skips chosen on something else are not this rule's.
    expect(check(`const HAS_PKI = findBinary('pki') !== null;\n(HAS_PKI ? test : test.skip)('x', () => {});`)).toEqual([]);
    expect(check(`describeOnPostgres('x', (target) => { test('y', () => {}); });`)).toEqual([]);
  });
});
