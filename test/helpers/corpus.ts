/** Access to the shared certificate corpus (`../shared/corpus/certs`, beside the repository). */
import * as fs from 'fs';
import * as path from 'path';

export const CORPUS_DIR = path.resolve(__dirname, '../../../shared/corpus/certs');

export interface CorpusFacts {
  serial: string;
  subject: { oid: string; value: string }[];
  extensions: { type: string; critical: boolean; value: unknown }[];
  md5?: string;
  sha1?: string;
  sha256?: string;
  sha512?: string;
  type: 'ca' | 'cert';
  ca?: string;
  parent?: string;
  key_type?: string;
  key_size?: number;
  algorithm?: string;
  path_length?: number | null;
  profile?: string;
  password?: string;
  [key: string]: unknown;
}

export interface CorpusEntry {
  name: string;
  pem: string;
  facts: CorpusFacts;
  /** Private key DER (PKCS#8 or traditional), generated certificates only. */
  keyDer: Buffer | null;
}

export function corpusNames(): string[] {
  return fs
    .readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.pem'))
    .map((f) => f.slice(0, -4))
    .sort();
}

export function loadCorpusEntry(name: string): CorpusEntry {
  const keyPath = path.join(CORPUS_DIR, `${name}.key.der`);
  return {
    name,
    pem: fs.readFileSync(path.join(CORPUS_DIR, `${name}.pem`), 'utf8'),
    facts: JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, `${name}.json`), 'utf8')),
    keyDer: fs.existsSync(keyPath) ? fs.readFileSync(keyPath) : null,
  };
}

export function loadCorpus(): CorpusEntry[] {
  return corpusNames().map(loadCorpusEntry);
}

/** DER of a PEM certificate, without going through the engine under test. */
export function pemToDer(pem: string): Buffer {
  const body = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
  return Buffer.from(body, 'base64');
}
