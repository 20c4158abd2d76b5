/**
 * The requests of the parity table, and their CSRs as a client makes them (`openssl req`, with a key
 * made by Node's crypto): what each door is asked, in the door's own form, comes from one of these.
 */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { CaName, World } from './world';

/** The CSR's key: a fresh one of a kind, or the key of a CA of the hierarchy. */
export type KeyKind = 'rsa-2048' | 'rsa-1024' | 'rsa-512' | 'ec-p192' | 'ec-p256' | 'ec-p384' | 'issuing-ca-key' | 'root-key';

export interface IssuanceRequest {
  /** The CA asked to sign. */
  ca: CaName;
  key: KeyKind;
  /** The subject's commonName (absent: an empty subject). */
  cn?: string;
  /** subjectAltNames as openssl writes them: `DNS:name`, `IP:address`. */
  sans?: string[];
  /** The validity asked for, in days (absent: nothing asked — the door's default). */
  days?: number;
  /** The CSR's self-signature broken (one bit of the signature flipped). */
  badSignature?: boolean;
}

export interface Csr {
  der: Buffer;
  pem: string;
  keyPem: string;
  /** The key as a file, for openssl. */
  keyFile: string;
  /** The CSR as a PEM file, for ca-admin. */
  file: string;
}

let counter = 0;

/**
 * One key of each kind for the whole file, and one CSR per request (the same CSR through every door):
 * on a busy machine an RSA-2048 key takes Node most of a second, an openssl run a tenth.
 */
const keys = new Map<KeyKind, string>();
/** Per world: a CSR is also a file in the world's directory, gone with the world. */
const csrs = new WeakMap<World, Map<string, Csr>>();

function freshKey(kind: KeyKind): crypto.KeyObject {
  switch (kind) {
    case 'rsa-2048':
      return crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    case 'rsa-1024':
      return crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    case 'rsa-512':
      return crypto.generateKeyPairSync('rsa', { modulusLength: 512 }).privateKey;
    case 'ec-p192':
      return crypto.generateKeyPairSync('ec', { namedCurve: 'prime192v1' }).privateKey;
    case 'ec-p256':
      return crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    case 'ec-p384':
      return crypto.generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey;
    default:
      throw new Error(`${kind} is not a fresh key`);
  }
}

/** The private key (PEM) a request's CSR is signed with. */
export function keyPemOf(world: World, req: IssuanceRequest): string {
  if (req.key === 'issuing-ca-key') return world.cas[req.ca].keyPem;
  if (req.key === 'root-key') return world.root.keyPem;
  let pem = keys.get(req.key);
  if (!pem) keys.set(req.key, (pem = freshKey(req.key).export({ type: 'pkcs8', format: 'pem' }) as string));
  return pem;
}

/** Whether the request's key is an RSA key (SCEP signs its messages with RSA keys only). */
export function isRsaKey(req: IssuanceRequest): boolean {
  return req.key.startsWith('rsa') || req.key === 'issuing-ca-key' || req.key === 'root-key';
}

/**
 * The CSR of `req` made by `openssl req` with `keyPem` (default: the key of the request's kind), with
 * a challengePassword attribute when given (SCEP). Subject strings go into openssl's configuration as
 * they are (UTF-8), control characters included.
 */
export function csrOf(world: World, req: IssuanceRequest, o: { keyPem?: string; challenge?: string } = {}): Csr {
  const keyPem = o.keyPem ?? keyPemOf(world, req);
  const asked = JSON.stringify([keyPem, req.cn, req.sans, req.badSignature, o.challenge]);
  let made = csrs.get(world);
  if (!made) csrs.set(world, (made = new Map()));
  let csr = made.get(asked);
  if (!csr) made.set(asked, (csr = makeCsr(world, req, keyPem, o.challenge)));
  return csr;
}

function makeCsr(world: World, req: IssuanceRequest, keyPem: string, challenge: string | undefined): Csr {
  const n = ++counter;
  const keyFile = path.join(world.dir, `req-${n}.key`);
  fs.writeFileSync(keyFile, keyPem);
  const config = path.join(world.dir, `req-${n}.cnf`);
  fs.writeFileSync(
    config,
    [
      '[req]',
      'distinguished_name = dn',
      'attributes = attrs',
      'prompt = no',
      'utf8 = yes',
      'string_mask = utf8only',
      '[dn]',
      ...(req.cn !== undefined ? [`CN = ${req.cn}`] : ['O = Parity']),
      '[attrs]',
      ...(challenge ? [`challengePassword = ${challenge}`] : []),
    ].join('\n'),
  );
  const args = ['req', '-new', '-key', keyFile, '-config', config, '-outform', 'DER'];
  if (req.cn === undefined) args.push('-subj', '/');
  if (req.sans?.length) args.push('-addext', `subjectAltName=${req.sans.join(',')}`);
  let der = execFileSync('openssl', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  if (req.badSignature) {
    der = Buffer.from(der);
    der[der.length - 1] ^= 0x01;
  }
  const pem = `-----BEGIN CERTIFICATE REQUEST-----\n${der
    .toString('base64')
    .replace(/.{64}/g, '$&\n')
    .replace(/\n$/, '')}\n-----END CERTIFICATE REQUEST-----\n`;
  const file = path.join(world.dir, `req-${n}.csr`);
  fs.writeFileSync(file, pem);
  return { der, pem, keyPem, keyFile, file };
}

/** The subjectAltNames as the REST API's GeneralName JSON. */
export function sanJson(req: IssuanceRequest): { type: string; value: string }[] {
  return (req.sans ?? []).map((s) => {
    const at = s.indexOf(':');
    return { type: s.slice(0, at), value: s.slice(at + 1) };
  });
}

/** The asked validity as an instant, `days` from now. */
export function notAfterOf(req: IssuanceRequest): Date | null {
  return req.days === undefined ? null : new Date(Date.now() + req.days * 86_400_000);
}
