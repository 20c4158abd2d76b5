/**
 * `AdminSessionStore` (lib/ports/admin-sessions.ts) as `store.adminSessions`: the admin interface's
 * sessions in `ca_api_admin_sessions` (migrations 0021 and 0023), on the store's connection.
 */
import type { Knex } from 'knex';
import type { AdminSessionRecord, AdminSessionStore, NewAdminSession } from '../../../lib/ports';
import { mappingErrors } from './errors';
import { TABLES } from './tables';
import { toDate, toNumber } from './values';

interface Row {
  token_sha256: string;
  user_id: unknown;
  user_updated: unknown;
  csrf_token: string;
  address: string;
  created: unknown;
  last_seen: unknown;
  step_up_at: unknown;
}

export class KnexAdminSessionStore implements AdminSessionStore {
  constructor(private readonly db: Knex) {}

  createAdminSession(s: NewAdminSession): Promise<void> {
    return mappingErrors(async () => {
      await this.db(TABLES.adminSessions).insert({
        token_sha256: s.tokenSha256,
        user_id: s.userId,
        user_updated: s.userUpdated,
        csrf_token: s.csrfToken,
        address: s.address,
        created: s.created,
        last_seen: s.created,
        step_up_at: s.stepUpAt,
      });
    });
  }

  findAdminSession(tokenSha256: string): Promise<AdminSessionRecord | null> {
    return mappingErrors(async () => {
      const row = (await this.db(TABLES.adminSessions).where({ token_sha256: tokenSha256 }).first()) as Row | undefined;
      if (!row) return null;
      return {
        tokenSha256: row.token_sha256,
        userId: toNumber(row.user_id),
        userUpdated: toDate(row.user_updated),
        csrfToken: row.csrf_token,
        address: row.address,
        created: toDate(row.created),
        lastSeen: toDate(row.last_seen),
        stepUpAt: toDate(row.step_up_at),
      };
    });
  }

  touchAdminSession(tokenSha256: string, at: Date): Promise<void> {
    return mappingErrors(async () => {
      await this.db(TABLES.adminSessions).where({ token_sha256: tokenSha256 }).update({ last_seen: at });
    });
  }

  deleteAdminSession(tokenSha256: string): Promise<void> {
    return mappingErrors(async () => {
      await this.db(TABLES.adminSessions).where({ token_sha256: tokenSha256 }).delete();
    });
  }

  deleteStaleAdminSessions(idleBefore: Date, createdBefore: Date): Promise<number> {
    return mappingErrors(async () => {
      const n = await this.db(TABLES.adminSessions).where('last_seen', '<', idleBefore).orWhere('created', '<', createdBefore).delete();
      return Number(n);
    });
  }
}
