// `toolrun keys …`: API keys managed against the database (DATABASE_URL), as `npm run apikey` does.
// Pending: once the API has key-management mutations, these go through the API with an admin key
// instead, like the other commands.
import { loadConfig } from '../config.js';
import { createDb } from '../db.js';
import { ApiKeyAdmin, type ApiKeyInfo } from '../domain/tenants/api-key-admin.js';
import { ApiKeyService, ROLES, type Role } from '../domain/tenants/api-keys.js';
import { checkDatabase } from '../preflight.js';
import type { Screen } from './render.js';
import { table } from './render.js';
import { CliError } from './transport.js';

export type KeysCommand =
  | { action: 'list'; tenant: string }
  | { action: 'create'; tenant: string; name: string; roles: string }
  | { action: 'revoke' | 'rotate'; tenant: string; key: string };

export async function keysCommand(screen: Screen, command: KeysCommand): Promise<void> {
  const config = loadConfig();
  await checkDatabase(config, { requireSchema: true });
  const db = createDb(config.DATABASE_URL, { poolSize: 2 });
  const keys = new ApiKeyService(db);
  const admin = new ApiKeyAdmin(db, keys);
  try {
    switch (command.action) {
      case 'list': {
        const rows = (await admin.list(command.tenant)).map((key) => [key.id, `${key.prefix}…`, key.name, key.roles.join(','), key.createdAt.toISOString(), state(key)]);
        screen.write(table(['ID', 'PREFIX', 'NAME', 'ROLES', 'CREATED', 'STATE'], rows));
        break;
      }
      case 'create': {
        const roles = command.roles.split(',').map((role) => role.trim()).filter(Boolean);
        const unknown = roles.filter((role) => !(ROLES as readonly string[]).includes(role));
        if (unknown.length > 0) throw new CliError(`unknown role ${unknown.join(', ')} (roles: ${ROLES.join(', ')})`);
        const { key, tenant, apiKeyId } = await keys.createKey(command.tenant, { name: command.name, roles: roles as Role[] });
        screen.write(`tenant ${tenant.name} (${tenant.id})\nid     ${apiKeyId}\nroles  ${roles.join(', ')}\nkey    ${key}\nThe key is shown once; only its hash is stored.\n`);
        break;
      }
      case 'revoke': {
        const key = await admin.revoke(command.tenant, command.key);
        screen.write(`revoked ${key.prefix}… (${key.id}) at ${key.revokedAt?.toISOString()}; it stops authenticating within 10 s\n`);
        break;
      }
      case 'rotate': {
        const { key, replaced, created } = await admin.rotate(command.tenant, command.key);
        screen.write(`revoked ${replaced.prefix}… (${replaced.id})\nid     ${created.id}\nroles  ${created.roles.join(', ')}\nkey    ${key}\nThe key is shown once; only its hash is stored.\n`);
        break;
      }
    }
  } finally {
    await db.$disconnect();
  }
}

function state(key: ApiKeyInfo): string {
  return key.revokedAt ? `revoked ${key.revokedAt.toISOString()}` : 'active';
}
