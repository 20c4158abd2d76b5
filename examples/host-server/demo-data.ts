/**
 * The example server's demo data: a root CA, an API-enabled intermediate and an API user, made once
 * per database — and what it keeps on disk about them, which belongs to that database too.
 *
 * The database holds only the user's bcrypt hash, so the password the server prints is kept in the
 * data directory (CA_DATA_DIR), beside root.pem: in the directory itself for its own PGlite database
 * (the default), under `databases/<name>/` for any other DATABASE_URL. A password is printed only
 * after it logged in to the database in use; a database without the demo user gets a new one.
 */
import { createHash, randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import {
  actingAs,
  createApiUser,
  editCa,
  initCa,
  parseDatabaseUrl,
  storeAuthenticator,
  type CaAcmeSettings,
  type CaPatch,
  type CaRecord,
  type Actor,
  type InitCaOptions,
  type Store,
} from '../../lib';

export interface DemoCredentials {
  username: string;
  password: string;
}

export interface DemoData {
  root: CaRecord;
  intermediate: CaRecord;
  /** null: the database has a demo user whose password this data directory does not know. */
  credentials: DemoCredentials | null;
  /** What this start made: CAs, the user. */
  created: string[];
  /** Where this database's password and root.pem are kept. */
  folder: string;
  rootPem: string;
}

const ROOT_NAME = 'Example Root';
export const INTERMEDIATE_NAME = 'Example Intermediate';
const DEMO_USERNAME = 'demo';
const CREDENTIALS_FILE = 'demo-credentials.json';
/**
 * With CA_ENABLE_ACME: ACME on, registration open, no contact needed (a demo client need not give an
 * e-mail address).
 */
const DEMO_ACME: CaAcmeSettings = { acmeEnabled: true, acmeRegistration: true, acmeRequiresContact: false };

/**
 * The folder for the database named by `databaseUrl`: the data directory for the PGlite database in
 * it; else `databases/<kind-host-name>-<hash>` — readable, one per database (the hash is of the URL
 * without its password, which appears nowhere on disk or in the log).
 */
export function demoFolder(dataDir: string, databaseUrl: string): string {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.kind === 'pglite-directory' && target.directory === dataDir) return dataDir;
  let label: string;
  let identity: string;
  if (target.kind === 'postgres') {
    const url = new URL(target.url);
    url.password = '';
    label = `postgres-${url.hostname || 'local'}-${decodeURIComponent(url.pathname.slice(1)) || 'postgres'}`;
    identity = url.toString();
  } else if (target.kind === 'pglite-directory') {
    label = `pglite-${path.basename(target.directory)}`;
    identity = target.directory;
  } else {
    label = identity = 'memory';
  }
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 8);
  return path.join(dataDir, 'databases', `${label.replace(/[^A-Za-z0-9._-]/g, '_')}-${hash}`);
}

/** The audit log names this server as the author of its demo data (docs/operations/audit-and-events.md "Domain events"). */
export const EXAMPLE_SERVER_ACTOR: Actor = { type: 'system', name: 'example-server', protocol: 'library' };

/** Root + API-enabled intermediate + the demo user, each made when the database lacks it. */
export async function ensureDemoData(o: {
  store: Store;
  keyBackends: InitCaOptions['keyBackends'];
  dataDir: string;
  folder: string;
  hostname: string;
  /** CA_URL_PATH: where the server serves the URLs the new CAs' certificates name. */
  urlPath: string;
  /** CA_ENABLE_ACME: make the intermediate take ACME clients (docs/COMPATIBILITY.md §2, `acme_*`). */
  acme: boolean;
}): Promise<DemoData> {
  const store = actingAs(o.store, EXAMPLE_SERVER_ACTOR);
  const created: string[] = [];
  /** The CA of that name, made with these options when missing. */
  const ensureCa = async (name: string, options: Partial<InitCaOptions>): Promise<CaRecord> => {
    const found = await store.findCaByName(name);
    if (found) return found;
    created.push(name);
    return initCa({
      store,
      keyBackends: o.keyBackends,
      name,
      subject: [{ oid: 'CN', value: name }],
      keyType: 'EC',
      defaultHostname: o.hostname,
      urlPath: o.urlPath,
      ...options,
    });
  };
  const root = await ensureCa(ROOT_NAME, { curve: 'secp384r1', pathLength: 1 });
  let intermediate = await ensureCa(INTERMEDIATE_NAME, {
    parent: root,
    apiEnabled: true,
    expiresDays: 3 * 365,
    acme: o.acme ? DEMO_ACME : {},
  });
  if (o.acme) intermediate = await enableAcme(store, intermediate);

  fs.mkdirSync(o.folder, { recursive: true, mode: 0o700 }); // the demo password is kept here
  let credentials = await knownCredentials(store, [path.join(o.folder, CREDENTIALS_FILE), path.join(o.dataDir, CREDENTIALS_FILE)]);
  if (credentials === undefined) {
    credentials = { username: DEMO_USERNAME, password: randomBytes(12).toString('base64url') };
    // Every permission, granted by name: the walkthrough the server prints uses each of them.
    await createApiUser(store, credentials.username, credentials.password, {
      viewCertificateAuthority: true,
      changeCertificateAuthority: true,
      signCertificate: true,
      viewCertificate: true,
      revokeCertificate: true,
      useAdmin: true,
      viewAuditLog: true,
      manageWebhooks: true,
      manageUsers: true,
    });
    created.push(`API user ${DEMO_USERNAME}`);
  }
  if (credentials) fs.writeFileSync(path.join(o.folder, CREDENTIALS_FILE), JSON.stringify(credentials) + '\n', { mode: 0o600 });
  const rootPem = path.join(o.folder, 'root.pem');
  fs.writeFileSync(rootPem, root.certificate.pem, { mode: 0o600 }); // a file of a private directory, as the rest
  return { root, intermediate, credentials, created, folder: o.folder, rootPem };
}

/** DEMO_ACME on an existing intermediate, written only where the row differs: a restart changes nothing. */
async function enableAcme(store: Store, ca: CaRecord): Promise<CaRecord> {
  const patch = Object.fromEntries(Object.entries(DEMO_ACME).filter(([k, v]) => ca[k as keyof CaPatch] !== v)) as CaPatch;
  return Object.keys(patch).length ? editCa(store, ca, patch) : ca;
}

/**
 * The demo user's password from the first kept file whose password logs in to this database;
 * undefined when the database has no demo user (make one), null when none of them logs in.
 */
async function knownCredentials(store: Store, files: string[]): Promise<DemoCredentials | null | undefined> {
  if (!(await store.findUser(DEMO_USERNAME))) return undefined;
  const authenticator = storeAuthenticator(store);
  try {
    for (const file of new Set(files)) {
      const kept = readCredentials(file);
      if (kept?.username === DEMO_USERNAME && (await authenticator.authenticate(kept.username, kept.password))) return kept;
    }
    return null;
  } finally {
    await authenticator.close();
  }
}

function readCredentials(file: string): DemoCredentials | null {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<DemoCredentials>;
    return typeof value.username === 'string' && typeof value.password === 'string'
      ? { username: value.username, password: value.password }
      : null;
  } catch {
    return null; // absent or unreadable: not this database's
  }
}
