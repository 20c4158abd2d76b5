/** Who did something, in words, as the admin interface's audit log and Signatures page and `ca-admin list_intents` show it: `api_user alice over admin from 127.0.0.1`. */
import type { Actor } from '../ports';

export function actorWords(actor: Readonly<Partial<Record<keyof Actor, unknown>>>): string {
  return [
    actor.type,
    actor.name ?? actor.id,
    actor.protocol && `over ${String(actor.protocol)}`,
    actor.address && `from ${String(actor.address)}`,
  ]
    .filter(Boolean)
    .join(' ');
}
