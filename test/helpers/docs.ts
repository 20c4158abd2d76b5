/**
 * The package's documentation as the tests read it: README.md (the front page) and every Markdown
 * file under docs/ (docs/README.md is their index). Tests that check a documented table or command
 * find it by its heading wherever it lives (`docSection`), so that a section may move between pages
 * without its test losing it; the doc test (test/package/readme-commands.test.ts) runs or checks the
 * marking of every fenced block of every one of these files.
 */
import * as fs from 'fs';
import * as path from 'path';

export const DOCS_ROOT = path.resolve(__dirname, '../..');

function markdownUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(DOCS_ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownUnder(rel));
    else if (entry.name.endsWith('.md')) out.push(rel);
  }
  return out;
}

/** README.md first, then every docs/**\/*.md in path order. */
export const DOC_FILES: readonly string[] = ['README.md', ...markdownUnder('docs').sort()];

export const readDoc = (file: string): string => fs.readFileSync(path.join(DOCS_ROOT, file), 'utf8');

/** Every documentation file's text, README first. */
export const allDocs = (): string => DOC_FILES.map(readDoc).join('\n');

/**
 * The section under the heading whose text is `heading` (any level, e.g. `Keys in an HSM` or
 * `ACME endpoints`), up to the next heading of the same or a higher level, found in exactly one file.
 * Fenced blocks do not end it (a `# comment` in a shell block is no heading).
 */
export function docSection(heading: string): { file: string; text: string } {
  const found: { file: string; text: string }[] = [];
  for (const file of DOC_FILES) {
    const lines = readDoc(file).split('\n');
    let fence = false;
    let start = -1;
    let level = 0;
    for (let i = 0; i < lines.length; i++) {
      if (/^\s*```/.test(lines[i])) fence = !fence;
      const m = fence ? null : /^(#+) (.*)$/.exec(lines[i]);
      if (!m) continue;
      if (start >= 0 && m[1].length <= level) {
        found.push({ file, text: lines.slice(start, i).join('\n') });
        start = -1;
      }
      if (start < 0 && m[2].trim() === heading) {
        start = i;
        level = m[1].length;
      }
    }
    if (start >= 0) found.push({ file, text: lines.slice(start).join('\n') });
  }
  if (found.length !== 1)
    throw new Error(`heading "${heading}" is in ${found.length} documentation sections (${found.map((f) => f.file).join(', ')})`);
  return found[0];
}
