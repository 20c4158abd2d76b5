/** The CSR every bench client sends: an EC P-256 request made by the `openssl` CLI. */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export function benchCsrPem(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-csr-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        path.join(dir, 'k'),
        '-out',
        path.join(dir, 'r'),
        '-subj',
        '/CN=bench.example.com',
      ],
      { stdio: 'pipe' },
    );
    return fs.readFileSync(path.join(dir, 'r'), 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
