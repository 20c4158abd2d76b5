/**
 * The token of a backend and its sessions: the slot found by token label, one login, and a small pool
 * of sessions — one per signature in flight (a PKCS#11 session runs one operation at a time, v2.40
 * §5.6), so that concurrent orders sign in parallel on a token that can.
 *
 * After a token reset (sessions invalid, user logged out, token removed and inserted again) the pool is
 * dropped, the slot is looked up again and the user logs in again, once per failed call. A token that is
 * still missing then makes the call fail with `KeyBackendUnavailableError` (the API answers 503, an order
 * fails with the reason) — never a crashed process.
 */
import * as crypto from 'crypto';
import { KeyBackendUnavailableError, OptionsError } from '../../../lib/ports';
import { ENTRY, type Binding, type Handle, type Pkcs11Module } from './binding';
import { ckr, ckrText, isResetCode } from './errors';
import { closeLibrary, openLibrary } from './library';

export interface TokenConfig {
  library: string;
  token: string;
  pin: string;
  alias: string;
  sessions: number;
}

export class TokenSessions {
  readonly binding: Binding;
  readonly module: Pkcs11Module;
  private slot: Handle | null = null;
  private idle: Handle[] = [];
  private open = 0;
  private readonly waiting: { resolve: (session: Handle) => void; reject: (e: unknown) => void }[] = [];
  /** Bumped by every reset: what was found under an older generation (object handles) is stale. */
  generation = 0;
  private closed = false;
  private readonly logins: Map<string, Buffer>;
  /** Every session this backend opened and has not closed (other backends' sessions are theirs). */
  private readonly mine = new Set<Handle>();

  /** Opens the token now, so that a wrong PIN or a missing token is a start-up error (OptionsError). */
  constructor(private readonly config: TokenConfig) {
    const { binding, module, logins } = openLibrary(config.library);
    this.binding = binding;
    this.module = module;
    this.logins = logins;
    try {
      this.connect();
    } catch (e) {
      closeLibrary(config.library);
      throw new OptionsError(this.describe(e), ENTRY);
    }
  }

  /** Find the slot, open a session and log in; plain `Error`s with an operator's message. */
  private connect(): void {
    const { binding: b, module: m, config } = this;
    const labels: string[] = [];
    let slot: Handle | null = null;
    for (const candidate of m.C_GetSlotList(true)) {
      const label = m.C_GetTokenInfo(candidate).label.trim();
      labels.push(label);
      if (label === config.token && !slot) slot = candidate;
    }
    if (!slot) {
      const present = labels.filter((l) => l !== '').map((l) => JSON.stringify(l));
      throw new Error(
        `${config.alias}: no token labelled ${JSON.stringify(config.token)} in ${config.library}` +
          ` (tokens present: ${present.length > 0 ? present.join(', ') : 'none'})`,
      );
    }
    const session = m.C_OpenSession(slot, b.CKF_SERIAL_SESSION | b.CKF_RW_SESSION);
    const pinHash = crypto.createHash('sha256').update(config.pin).digest();
    try {
      m.C_Login(session, b.CKU_USER, config.pin);
      this.logins.set(config.token, pinHash);
    } catch (e) {
      const known = this.logins.get(config.token);
      if (ckr(e) === b.CKR_USER_ALREADY_LOGGED_IN && !(known && crypto.timingSafeEqual(known, pinHash))) {
        // Logged in by another backend of this process: the token did not check this PIN, so compare.
        m.C_CloseSession(session);
        throw new Error(
          `${config.alias}: token ${JSON.stringify(config.token)}: the PIN is incorrect (not the one this process logged in with)`,
          { cause: e },
        );
      }
      if (ckr(e) !== b.CKR_USER_ALREADY_LOGGED_IN) {
        m.C_CloseSession(session);
        const code = ckr(e);
        const why =
          code === b.CKR_PIN_INCORRECT
            ? 'the PIN is incorrect'
            : code === b.CKR_PIN_LOCKED
              ? 'the PIN is locked'
              : `the login failed (${ckrText(e)})`;
        throw new Error(`${config.alias}: token ${JSON.stringify(config.token)}: ${why}`, { cause: e });
      }
    }
    this.slot = slot;
    this.idle = [session];
    this.open = 1;
    this.mine.add(session);
  }

  /** Close this backend's sessions only (C_CloseAllSessions would end other backends' on the token too). */
  private closeMine(): void {
    for (const session of this.mine) {
      try {
        this.module.C_CloseSession(session);
      } catch {
        // invalid already (the token was reset or removed)
      }
    }
    this.mine.clear();
  }

  /** Drop every session (they are invalid after a reset) and connect again. */
  private reset(): void {
    this.generation += 1;
    this.closeMine();
    this.slot = null;
    this.idle = [];
    this.open = 0;
    try {
      this.connect();
    } catch (e) {
      const error = this.unavailable(e);
      for (const waiter of this.waiting.splice(0)) waiter.reject(error);
      throw error;
    }
  }

  /** An operator's message for a failure of `connect` or of a call: ours as they are, the token's with its CKR_ name. */
  private describe(e: unknown): string {
    if (e instanceof Error && ckr(e) === null) return e.message;
    return `${this.config.alias}: token ${JSON.stringify(this.config.token)} in ${this.config.library}: ${ckrText(e)}`;
  }

  private unavailable(e: unknown): KeyBackendUnavailableError {
    return new KeyBackendUnavailableError(`The HSM is unavailable: ${this.describe(e)}`, { cause: e });
  }

  private acquire(): Promise<Handle> {
    if (this.closed) return Promise.reject(new KeyBackendUnavailableError(`${this.config.alias}: the key backend was closed`));
    const session = this.idle.pop();
    if (session) return Promise.resolve(session);
    if (!this.slot) return Promise.reject(this.unavailable(new Error(`${this.config.alias}: the token is not connected`)));
    if (this.open < this.config.sessions) {
      const opened = this.module.C_OpenSession(this.slot, this.binding.CKF_SERIAL_SESSION | this.binding.CKF_RW_SESSION);
      this.open += 1;
      this.mine.add(opened);
      return Promise.resolve(opened);
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private release(session: Handle, generation: number): void {
    if (generation !== this.generation) return; // a session of before the reset: already closed
    const next = this.waiting.shift();
    if (next) next.resolve(session);
    else this.idle.push(session);
  }

  /**
   * Run `work` with a session of its own. `work` gets the generation it runs under, to tell cached
   * object handles from stale ones. A reset-class failure resets the token and runs `work` once more.
   */
  async use<T>(work: (session: Handle, generation: number) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let session: Handle;
      try {
        if (!this.slot) this.reset(); // a reset before failed: try again now
        session = await this.acquire();
      } catch (e) {
        if (e instanceof KeyBackendUnavailableError) throw e;
        if (attempt > 0 || !isResetCode(this.binding, ckr(e))) throw this.unavailable(e);
        this.reset(); // C_OpenSession after a reset: the slot is stale (throws when the token stays gone)
        continue;
      }
      const generation = this.generation;
      try {
        const result = await work(session, generation);
        this.release(session, generation);
        return result;
      } catch (e) {
        if (!isResetCode(this.binding, ckr(e))) {
          this.release(session, generation);
          throw e;
        }
        if (attempt > 0) throw this.unavailable(e);
        if (generation === this.generation) this.reset(); // else another call reset it already
        this.wakeWaiters();
      }
    }
  }

  /** After a reset, callers waiting for a session get fresh ones (or open them). */
  private wakeWaiters(): void {
    while (this.waiting.length > 0 && (this.idle.length > 0 || this.open < this.config.sessions)) {
      const next = this.waiting.shift() as (typeof this.waiting)[number];
      this.acquire().then(next.resolve, next.reject);
    }
  }

  /**
   * The token's limits for `mechanism` (key sizes in bits for RSA), or null when it lacks the
   * mechanism (C_GetMechanismList, C_GetMechanismInfo: PKCS#11 v2.40 §5.5).
   */
  mechanism(mechanism: number): { minKeySize: number; maxKeySize: number } | null {
    if (!this.slot) return { minKeySize: 0, maxKeySize: Infinity }; // not connected: the call itself will say so
    if (!this.module.C_GetMechanismList(this.slot).includes(mechanism)) return null;
    return this.module.C_GetMechanismInfo(this.slot, mechanism);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closeMine();
    closeLibrary(this.config.library);
  }
}
