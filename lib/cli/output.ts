/**
 * Output options shared by init_ca, sign_cert, view_ca and view_cert (docs/COMPATIBILITY.md §4.3).
 */
import { Option } from 'commander';
import { hasAcmeStore, type AcmeCaPolicy, type CaRecord, type CertificateRecord, type Store } from '../ports';
import { caToJson, certificateToJson, FINGERPRINT_ORDER } from '../api/serialize';
import { pemEncode } from '../x509/pem';
import { serialToColons } from '../x509/serial-format';
import { NAME_OID_ALIASES } from '../x509/oids';
import { formatUtc } from '../x509/datetime';
import type { Name } from '../x509/types';
import { CaError } from '../ca/errors';
import { caChain } from '../ca/lookup';
import { issuancePolicyInWords } from '../ca/policy/ca-policy-settings';

export type OutputFormat = 'pem' | 'der' | 'serial' | 'text' | 'json' | 'none';

export interface OutputOptions {
  outputFormat?: OutputFormat;
  serialFormat?: 'int' | 'hex' | 'dotted-hex';
  bundle?: boolean;
  pem?: boolean; // false with -n/--no-pem
  extensions?: boolean; // false with --no-extensions
  jsonIndent?: string;
}

export function outputOptions(defaultFormat: OutputFormat): Option[] {
  return [
    new Option('--output-format <format>', 'output format')
      .choices(['pem', 'der', 'serial', 'text', 'json', 'none'])
      .default(defaultFormat),
    new Option('--serial-format <format>', 'how to print serials').choices(['int', 'hex', 'dotted-hex']).default('dotted-hex'),
    new Option('-b, --bundle', 'output the whole certificate chain (PEM)'),
    new Option('-n, --no-pem', 'do not include the PEM in text output'),
    new Option('--no-extensions', 'do not include extensions in text output'),
    new Option('--no-wrap', 'do not wrap long lines (accepted for compatibility)'),
    new Option('--json-indent <n>', 'indentation of JSON output'),
  ];
}

export function formatSerial(serial: string, format: OutputOptions['serialFormat'] = 'dotted-hex'): string {
  if (format === 'int') return BigInt('0x' + serial).toString(10);
  if (format === 'hex') return serial;
  return serialToColons(serial);
}

/** JSON with sorted keys (the original CLI's pydantic dump), not the API's key order. */
function sortedJson(value: unknown, indent?: number): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v as object)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value), null, indent);
}

/** "commonName (CN)" style label of a name attribute OID. */
export function attributeLabel(oid: string): string {
  const aliases = Object.entries(NAME_OID_ALIASES)
    .filter(([, dotted]) => dotted === oid)
    .map(([alias]) => alias);
  if (aliases.length === 0) return oid;
  const short = aliases.find((a) => a.length <= 2 && a === a.toUpperCase());
  return short ? `${aliases[0]} (${short})` : aliases[0];
}

function nameLines(name: Name): string[] {
  return name.length ? name.map((a) => `    ${attributeLabel(a.oid)}: ${a.value}`) : ['    (empty)'];
}

function status(rec: CaRecord | CertificateRecord, now: Date): string {
  if (rec.revoked) return `Revoked (${rec.revokedReason || 'unspecified'})`;
  if (rec.notAfter <= now) return 'Expired';
  if (rec.notBefore > now) return 'Not yet valid';
  return 'Valid';
}

function extensionLines(exts: { type: string; critical: boolean; value: unknown }[]): string[] {
  return exts.map((e) => `    ${e.type}${e.critical ? ' (critical)' : ''}: ${JSON.stringify(e.value)}`);
}

/**
 * The original's ACME section, word for word (Python's True/False included: scripts may read it);
 * registration, profile and the CA's ACME policy (docs/guides/acme.md) are ours, after its two lines — the
 * name lists only when they hold something, so that a CA without them reads as before.
 */
function acmeLines(ca: CaRecord, policy: AcmeCaPolicy | null): string[] {
  const bool = (b: boolean) => (b ? 'True' : 'False');
  if (!ca.acmeEnabled) return ['ACMEv2 support:', '* Enabled: False'];
  const lines = [
    'ACMEv2 support:',
    '* Enabled: True',
    `* Requires contact: ${bool(ca.acmeRequiresContact)}`,
    `* Account registration: ${bool(ca.acmeRegistration)}`,
    `* Profile: ${ca.acmeProfile}`,
  ];
  if (!policy) return lines;
  lines.push(`* External account binding: ${policy.eabRequired ? 'required' : 'optional'}`);
  if (policy.allow.length) lines.push(`* Names allowed: ${policy.allow.join(', ')}`);
  if (policy.deny.length) lines.push(`* Names denied: ${policy.deny.join(', ')}`);
  return lines;
}

/** The CA's own issuance policy (docs/guides/issuance-policy.md), each part, "defaults" where it narrows nothing. */
function issuancePolicyLines(ca: CaRecord): string[] {
  const words = issuancePolicyInWords(ca.issuancePolicy);
  return ['Issuance policy:', `* Keys accepted: ${words.keys}`, `* Names allowed: ${words.allow}`, `* Names denied: ${words.deny}`];
}

/** The policy view_ca shows: only where the ACME section has more than `Enabled: False`, and the store keeps one. */
async function shownPolicy(store: Store, ca: CaRecord): Promise<AcmeCaPolicy | null> {
  return ca.acmeEnabled && hasAcmeStore(store) ? store.acme.policy(ca.id) : null;
}

function textView(
  rec: CaRecord | CertificateRecord,
  kind: 'ca' | 'cert',
  o: OutputOptions,
  extra: { parent?: CaRecord | null; children?: CaRecord[]; issuer?: CaRecord | null; acme?: { policy: AcmeCaPolicy | null } },
): string {
  const now = new Date();
  const c = rec.certificate;
  const lines: string[] = [];
  if (kind === 'ca') {
    const ca = rec as CaRecord;
    lines.push(`Name: ${ca.name}`, `Enabled: ${ca.enabled ? 'Yes' : 'No'}`, `API enabled: ${ca.apiEnabled ? 'Yes' : 'No'}`);
  } else {
    const cert = rec as CertificateRecord;
    lines.push(`Common Name: ${cert.cn}`, `Profile: ${cert.profile}`, `Autogenerated: ${cert.autogenerated ? 'Yes' : 'No'}`);
  }
  lines.push('Subject:', ...nameLines(c.subject), 'Issuer:', ...nameLines(c.issuer));
  lines.push(`Serial: ${formatSerial(rec.serial, o.serialFormat)}`);
  lines.push(`Valid from: ${formatUtc(rec.notBefore)}`, `Valid until: ${formatUtc(rec.notAfter)}`);
  lines.push(`Status: ${status(rec, now)}`);
  if (kind === 'ca') {
    const ca = rec as CaRecord;
    lines.push(
      extra.parent ? `Parent: ${extra.parent.name} (${serialToColons(extra.parent.serial)})` : 'Certificate Authority is a root CA.',
    );
    if (extra.children?.length) {
      lines.push('Children:', ...extra.children.map((ch) => `    ${ch.name} (${serialToColons(ch.serial)})`));
    } else lines.push('Children: (none)');
    const bc = c.extensions.find((e) => e.type === 'basic_constraints');
    const pathLength = bc ? (bc.value as { path_length: number | null }).path_length : null;
    lines.push(`Path length: ${pathLength === null ? 'unlimited' : pathLength}`);
    lines.push(`Key storage: ${ca.keyBackendAlias}${keyStorageDetail(ca.keyBackendOptions)}`);
    lines.push(`CAA identity: ${ca.caaIdentity}`, `Website: ${ca.website}`, `Terms of service: ${ca.termsOfService}`);
    if (extra.acme) lines.push(...acmeLines(ca, extra.acme.policy));
    lines.push(...issuancePolicyLines(ca));
  } else if (extra.issuer) {
    lines.push(`Certificate Authority: ${extra.issuer.name} (${serialToColons(extra.issuer.serial)})`);
  }
  if (o.extensions !== false) {
    lines.push('Certificate extensions:', ...extensionLines(c.extensions));
    if (kind === 'ca') {
      const ca = rec as CaRecord;
      const sign = [
        ca.signAuthorityInformationAccess,
        ca.signCertificatePolicies,
        ca.signCrlDistributionPoints,
        ca.signIssuerAlternativeName,
      ].filter((e) => e !== null);
      lines.push('Certificate extensions for signed certificates:', ...(sign.length ? extensionLines(sign) : ['    (none)']));
    }
  }
  lines.push('Digests:', ...FINGERPRINT_ORDER.map((h) => `    ${h}: ${rec.fingerprints[h]}`));
  if (o.pem !== false) lines.push('', c.pem.trimEnd());
  return lines.join('\n') + '\n';
}

export interface ShowContext {
  store: Store;
  write: (data: string | Buffer) => void;
  /** Print a CA's ACME section in text output (`CA_ENABLE_ACME`, as the original). */
  acme?: boolean;
}

/** Print a CA or certificate in the requested format. */
export async function show(ctx: ShowContext, rec: CaRecord | CertificateRecord, kind: 'ca' | 'cert', o: OutputOptions): Promise<void> {
  const format = o.outputFormat ?? 'pem';
  const issuer = kind === 'cert' ? await ctx.store.getCa((rec as CertificateRecord).caId) : null;
  const parent = kind === 'ca' && (rec as CaRecord).parentId !== null ? await ctx.store.getCa((rec as CaRecord).parentId!) : null;
  switch (format) {
    case 'none':
      return;
    case 'serial':
      ctx.write(formatSerial(rec.serial, o.serialFormat) + '\n');
      return;
    case 'der':
      if (o.bundle) throw new CaError('invalid', 'Cannot output a bundle in DER format.');
      ctx.write(rec.der);
      return;
    case 'pem': {
      const certs = [rec.der, ...(o.bundle ? (await caChain(ctx.store, kind === 'ca' ? parent : issuer)).map((ca) => ca.der) : [])];
      ctx.write(certs.map((der) => pemEncode(der, 'CERTIFICATE')).join(''));
      return;
    }
    case 'json': {
      const json = kind === 'ca' ? caToJson(rec as CaRecord) : certificateToJson(rec as CertificateRecord);
      ctx.write(sortedJson(json, o.jsonIndent === undefined ? undefined : Number(o.jsonIndent)) + '\n');
      return;
    }
    case 'text': {
      const children = kind === 'ca' ? (await ctx.store.listCas()).filter((ca) => ca.parentId === (rec as CaRecord).id) : undefined;
      const acme = kind === 'ca' && ctx.acme ? { policy: await shownPolicy(ctx.store, rec as CaRecord) } : undefined;
      ctx.write(textView(rec, kind, o, { parent, children, issuer, acme }));
      return;
    }
  }
}

/**
 * What view_ca adds to the backend's alias: an HSM key's label, id and type (the references the
 * PKCS#11 backend stores, docs/operations/hsm.md); nothing of the default backend's encrypted key.
 */
function keyStorageDetail(options: Record<string, unknown> | null): string {
  if (options === null) return ' (no private key)';
  const { key_label: label, key_id: id, key_type: type } = options;
  if (typeof label !== 'string' || typeof id !== 'string') return '';
  return ` (${typeof type === 'string' ? `${type} ` : ''}key labelled ${JSON.stringify(label)}, id ${id})`;
}
