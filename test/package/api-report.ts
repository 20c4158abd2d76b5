/**
 * The package's public API as a report: every name each entry point of `exports` (package.json)
 * exports, with its kind and shape, read by the TypeScript compiler from the entry's source with the
 * build's options — what its published declaration (dist/lib/…/index.d.ts) has. docs/api-report.md
 * is this report, committed, so that a change to the public API shows in review
 * (test/package/api-report.test.ts).
 *
 * Why not @microsoft/api-extractor's report: 7.60.1 (bundling TypeScript 6.0.3) reports the package
 * entry, but stops on `express-ca-api/x509` with "Internal Error: Unable to follow symbol for
 * \"Buffer\"" (its known defect, microsoft/rushstack#4624), and it needs a build first.
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
  /** What a change to it would change: a function's or constant's type, an interface's or class's members, a type's definition. */
  shape: string;
}

const KINDS: [ts.SymbolFlags, string][] = [
  [ts.SymbolFlags.Class, 'class'],
  [ts.SymbolFlags.Function, 'function'],
  [ts.SymbolFlags.Variable, 'const'],
  [ts.SymbolFlags.Enum, 'enum'],
  [ts.SymbolFlags.Interface, 'interface'],
  [ts.SymbolFlags.TypeAlias, 'type'],
];

const FULL = ts.TypeFormatFlags.NoTruncation;
/** Prints a type's definition without its comments, which are not the API. */
const PRINTER = ts.createPrinter({ removeComments: true });

function shapeOf(checker: ts.TypeChecker, symbol: ts.Symbol): string {
  const flags = symbol.flags;
  if (flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class)) {
    // The members, as declared (a `?` for an optional one): an added, removed or now optional member shows.
    const members = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol));
    return `{ ${members.map((m) => m.name + (m.flags & ts.SymbolFlags.Optional ? '?' : '')).join(', ')} }`;
  }
  if (flags & ts.SymbolFlags.TypeAlias) {
    const declaration = symbol.declarations?.find(ts.isTypeAliasDeclaration);
    return declaration
      ? PRINTER.printNode(ts.EmitHint.Unspecified, declaration.type, declaration.getSourceFile()).replace(/\s+/g, ' ')
      : '';
  }
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  return declaration
    ? checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, declaration), undefined, FULL).replace(/\s+/g, ' ')
    : '';
}

/** The names each entry exports, sorted, by entry specifier. */
export function exportedNames(): Record<string, ExportedName[]> {
  const files = Object.values(ENTRIES).map((f) => path.join(ROOT, f));
  // The compiler options the package is built with (tsconfig.build.json), so that the names and
  // types are those of the published declarations.
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  const program = ts.createProgram(files, { ...config?.options, noEmit: true });
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
        return { name: symbol.name, kind, shape: shapeOf(checker, target) };
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
    "Every name the package exports, by entry point, with its kind and shape (a function's or constant's",
    'type, the members of an interface or class, the definition of a type). Generated — do not edit: after a',
    'deliberate change to the public API, run `UPDATE_API_REPORT=1 npx jest test/package/api-report.test.ts`',
    'and commit this file with the change (and docs/reference/exports.md, which must name',
    'every one of them).',
  ];
  for (const [specifier, exported] of Object.entries(names)) {
    lines.push('', `## \`${specifier}\``, '', `${exported.length} names.`, '');
    for (const { name, kind, shape } of exported) lines.push(`- \`${name}\` — ${kind}: \`${shape.replace(/`/g, "'")}\``);
  }
  return lines.join('\n') + '\n';
}
