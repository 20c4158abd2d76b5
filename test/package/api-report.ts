/**
 * The package's public API as a report: every name each entry point of `exports` (package.json)
 * exports, with its kind, read by the TypeScript compiler from the entry's source — the names and
 * kinds its published declaration (dist/lib/…/index.d.ts) has. docs/api-report.md is this report,
 * committed, so that a change to the public API shows in review (test/package/api-report.test.ts).
 */
import * as path from 'path';
import * as ts from 'typescript';

export const ROOT = path.resolve(__dirname, '../..');
export const REPORT_FILE = path.join(ROOT, 'docs', 'api-report.md');

/** The entry points of package.json's `exports`, by the specifier a user imports. */
export const ENTRIES: Record<string, string> = {
  'express-ca-api': 'lib/index.ts',
  'express-ca-api/x509': 'lib/x509/index.ts',
};

export interface ExportedName {
  name: string;
  /** `class`, `function`, `const`, `enum`, `interface`, `type`, or several joined by `+`. */
  kind: string;
}

const KINDS: [ts.SymbolFlags, string][] = [
  [ts.SymbolFlags.Class, 'class'],
  [ts.SymbolFlags.Function, 'function'],
  [ts.SymbolFlags.Variable, 'const'],
  [ts.SymbolFlags.Enum, 'enum'],
  [ts.SymbolFlags.Interface, 'interface'],
  [ts.SymbolFlags.TypeAlias, 'type'],
];

/** The names each entry exports, sorted, by entry specifier. */
export function exportedNames(): Record<string, ExportedName[]> {
  const files = Object.values(ENTRIES).map((f) => path.join(ROOT, f));
  const program = ts.createProgram(files, { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, noEmit: true });
  const checker = program.getTypeChecker();
  const out: Record<string, ExportedName[]> = {};
  for (const [specifier, file] of Object.entries(ENTRIES)) {
    const source = program.getSourceFile(path.join(ROOT, file));
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${file}: not a module`);
    out[specifier] = checker
      .getExportsOfModule(module)
      .map((symbol) => {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        // A class is a value and a type; `class` says both.
        const kinds = KINDS.filter(([flag]) => target.flags & flag).map(([, kind]) => kind);
        const kind = kinds.includes('class') ? 'class' : kinds.join('+');
        return { name: symbol.name, kind };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  return out;
}

/** The report's text: docs/api-report.md as it must be. */
export function apiReport(names: Record<string, ExportedName[]> = exportedNames()): string {
  const lines = [
    '# Public API report',
    '',
    'Every name the package exports, by entry point, with its kind. Generated — do not edit: after a',
    'deliberate change to the public API, run `UPDATE_API_REPORT=1 npx jest test/package/api-report.test.ts`',
    'and commit this file with the change (and README\'s "The package\'s exports", which must name',
    'every one of them).',
  ];
  for (const [specifier, exported] of Object.entries(names)) {
    lines.push('', `## \`${specifier}\``, '', `${exported.length} names.`, '');
    for (const { name, kind } of exported) lines.push(`- \`${name}\` — ${kind}`);
  }
  return lines.join('\n') + '\n';
}
