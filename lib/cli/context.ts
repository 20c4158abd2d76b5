/**
 * Everything a command needs, built once per invocation from the environment (the original's
 * settings of the same names) and closed afterwards.
 */
import * as os from 'os';
import { actingAs, type Actor, type KeyBackend, type SecretBox, type Store } from '../ports';
import type { KeyBackends } from '../ca/key-backends';
import { CaError } from '../ca/errors';
import type { Profiles } from '../ca/profiles';
import { readSettings, SettingsError, type CaSettings } from '../settings';
import type { CliIo } from './io';

/**
 * What the commands read of the environment: the settings as every reader takes them (lib/settings),
 * so that `ca-admin` and a router on the same environment agree.
 */
export type Settings = CaSettings;

/** Who runs `ca-admin`: the operating-system user (`USER` where the system has no name for the uid). */
function operatorActor(env: Record<string, string | undefined>): Actor {
  let name: string | null;
  try {
    name = os.userInfo().username;
  } catch {
    name = env.USER || env.LOGNAME || null;
  }
  return { type: 'operator', name, protocol: 'cli' };
}

export class CommandContext {
  private storePromise: Promise<Store> | null = null;
  private ownsStore = false;
  readonly settings: Settings;
  private backendCache: KeyBackends | null = null;
  /** Made here from the environment (not handed in): closed with the command (an HSM's sessions). */
  private ownsBackends = false;

  constructor(readonly io: CliIo) {
    try {
      this.settings = readSettings(io.env);
    } catch (e) {
      throw e instanceof SettingsError ? new CaError('invalid', e.message) : e;
    }
  }

  /**
   * The store, acting as the operator (their changes' events name `ca-admin` and the operating-system
   * user: docs/DESIGN.md "Domain events"); opened (and migrated) on first use so that `--help` needs no
   * database.
   */
  async store(): Promise<Store> {
    return actingAs(await this.openedStore(true), this.operator);
  }

  /** The operator as the requester of what the command issues (lib/ca/issuance) and the actor of its changes. */
  get operator(): Actor {
    return operatorActor(this.io.env);
  }

  /**
   * The store as `store()` gives it, but opened without migrating it first (the `migrate` command,
   * which counts what it applies). A store handed in by the caller is given as it is.
   */
  async unmigratedStore(): Promise<Store> {
    return actingAs(await this.openedStore(false), this.operator);
  }

  private openedStore(migrate: boolean): Promise<Store> {
    if (!this.storePromise) {
      const { store, openStore } = this.io;
      if (store) this.storePromise = Promise.resolve(store);
      else if (openStore) {
        this.ownsStore = true;
        this.storePromise = openStore(this.settings.databaseUrl ?? undefined, { migrate });
      } else {
        this.storePromise = Promise.reject(
          new CaError('invalid', 'No database: the command was given neither a store nor a way to open one.'),
        );
      }
    }
    return this.storePromise;
  }

  keyBackends(): KeyBackends {
    const given = this.io.keyBackends;
    if (!this.backendCache) {
      this.ownsBackends = typeof given === 'function';
      this.backendCache = typeof given === 'function' ? given(this.io.env) : (given ?? []);
    }
    return this.backendCache;
  }

  /**
   * The box that seals ACME external account binding keys; without one (no `CA_KEY_ENCRYPTION_KEY`) an
   * error, as a key the server cannot open would be worse than none.
   */
  secretBox(): SecretBox {
    const given = this.io.secretBox;
    const box = typeof given === 'function' ? given(this.io.env) : given;
    if (!box) {
      throw new CaError(
        'invalid',
        'No key-encryption key: set CA_KEY_ENCRYPTION_KEY (the key of the CA keys, and of the ACME server) — ' +
          'the MAC keys of external account bindings and the webhook secrets are stored sealed under it.',
      );
    }
    return box;
  }

  profiles(): Profiles {
    return this.settings.effectiveProfiles;
  }

  write(text: string | Buffer): void {
    this.io.stdout.write(text);
  }

  /** A line for the operator on stderr (what a command chose for them, a warning): never data. */
  note(line: string): void {
    this.io.stderr.write(`${line}\n`);
  }

  async close(): Promise<void> {
    if (this.ownsBackends && this.backendCache) {
      const all = Array.isArray(this.backendCache)
        ? this.backendCache
        : this.backendCache instanceof Map
          ? [...this.backendCache.values()]
          : Object.values(this.backendCache);
      for (const backend of all as (KeyBackend & { close?: () => void })[]) backend.close?.();
    }
    if (this.ownsStore && this.storePromise) {
      const store = await this.storePromise.catch(() => null);
      await store?.close();
    }
  }
}
