/**
 * One configuration (docs/reference/environment.md): the process's environment is read in
 * lib/settings and nowhere else in the library or its adapters. Every other file is given an `env`
 * (an option, `ca-admin`'s io) or the values lib/settings read from one — so that a host's explicit
 * options and environment are what counts, and one variable means the same to every way in. Checked
 * on the syntax tree of every source file under lib/ and adapters/ (and bin/): `process.env`,
 * `process['env']`, `const { env } = process` anywhere outside lib/settings/ fail. The example server
 * (examples/host-server/) is a host and reads its own environment; it is scanned only to show the
 * check sees reads.
 */
import * as fs from 'fs';
import * as path from 'path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const ALLOWED = ['lib/settings/', 'examples/host-server/'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out.sort();
}

/** Is `node` the identifier `process` (or `globalThis.process`)? */
function isProcess(node: ts.Node): boolean {
  if (ts.isIdentifier(node)) return node.text === 'process';
  return (
    ts.isPropertyAccessExpression(node) &&
    node.name.text === 'process' &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'globalThis'
  );
}

/** Every read of the process's environment in `text`, as `file:line what`. */
function environmentReads(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'env' && isProcess(node.expression)) at(node, 'process.env');
    if (
      ts.isElementAccessExpression(node) &&
      isProcess(node.expression) &&
      ts.isStringLiteralLike(node.argumentExpression) &&
      node.argumentExpression.text === 'env'
    ) {
      at(node, "process['env']");
    }
    // const { env } = process;  ({ env } = process)
    if (ts.isVariableDeclaration(node) && node.initializer && isProcess(node.initializer) && ts.isObjectBindingPattern(node.name)) {
      const names = node.name.elements.map((e) => (e.propertyName ?? e.name).getText(source));
      if (names.includes('env')) at(node, 'const { env } = process');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const read = (file: string) => environmentReads(file, fs.readFileSync(path.join(ROOT, file), 'utf8'));
const SCANNED = [...sourceFiles('lib'), ...sourceFiles('adapters'), ...sourceFiles('bin')];

describe('the environment is read in lib/settings only', () => {
  test('no file under lib/, adapters/ or bin/ outside lib/settings/ reads process.env', () => {
    const outside = SCANNED.filter((f) => !ALLOWED.some((dir) => f.startsWith(dir)));
    expect(outside.length).toBeGreaterThan(300);
    expect(outside.flatMap(read)).toEqual([]);
  });

  test('lib/settings reads it in one place: environment() (the default of every `env`)', () => {
    const inSettings = SCANNED.filter((f) => f.startsWith('lib/settings/')).flatMap(read);
    expect(inSettings).toEqual([expect.stringMatching(/^lib\/settings\/environment\.ts:\d+ process\.env$/)]);
  });

  test('the check is not blind: it sees the example server read its own environment, and every form of the read', () => {
    expect(sourceFiles('examples/host-server').flatMap(read).length).toBeGreaterThan(0);
    const forms = [
      'const a = process.env.DATABASE_URL;',
      "const b = process.env['PORT'];",
      "const c = process['env'].X;",
      'const { env } = process;',
      'const { env: e } = process;',
      'const d = globalThis.process.env;',
      'f(process?.env);',
    ].join('\n');
    expect(environmentReads('x.ts', forms).map((r) => r.replace(/^x\.ts:\d+ /, ''))).toEqual([
      'process.env',
      'process.env',
      "process['env']",
      'const { env } = process',
      'const { env } = process',
      'process.env',
      'process.env',
    ]);
    // Text that only names it is no read: a comment, a string, another object's env.
    expect(environmentReads('y.ts', "// process.env.X\nconst s = 'process.env';\nconst e = options.env;")).toEqual([]);
  });
});
