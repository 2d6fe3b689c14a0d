// `toolrun keys …`: the API keys of the tenant of the admin key the CLI runs with, through the API
// like every other command. A tenant's first key comes from `npm run apikey` (the database).
import { ROLES } from '../domain/tenants/api-keys.js';
import { ValidationError } from '../model/errors.js';
import { API_KEYS, type ApiKeyRow, CREATE_API_KEY, type IssuedKey, type Result, REVOKE_API_KEY, ROTATE_API_KEY, unwrap } from './operations.js';
import { type Screen, table } from './render.js';
import { CliError, type Transport } from './transport.js';

export type KeysCommand =
  | { action: 'list' }
  | { action: 'create'; name: string; roles: string; expiresIn?: string }
  | { action: 'revoke'; key: string }
  | { action: 'rotate'; key: string; overlap: string };

export async function keysCommand(api: Transport, screen: Screen, command: KeysCommand): Promise<void> {
  switch (command.action) {
    case 'list': {
      const { apiKeys } = await api.request<{ apiKeys: ApiKeyRow[] }>(API_KEYS);
      const rows = apiKeys.map((key) => [key.id, `${key.prefix}…`, key.name, key.roles.join(','), key.createdAt, state(key), key.lastUsedAt ?? 'never']);
      screen.write(table(['ID', 'PREFIX', 'NAME', 'ROLES', 'CREATED', 'STATE', 'LAST USED'], rows));
      return;
    }
    case 'create': {
      const roles = command.roles.split(',').map((role) => role.trim()).filter(Boolean);
      const unknown = roles.filter((role) => !(ROLES as readonly string[]).includes(role));
      if (unknown.length > 0) throw new CliError(`unknown role ${unknown.join(', ')} (roles: ${ROLES.join(', ')})`);
      const expiresAt = command.expiresIn === undefined ? null : new Date(Date.now() + durationOption(command.expiresIn, 'expires-in') * 1000).toISOString();
      const { createApiKey } = await api.request<{ createApiKey: Result<IssuedKey> }>(CREATE_API_KEY, { name: command.name, roles, expiresAt });
      screen.write(issued(unwrap(createApiKey, 'IssuedApiKey')));
      return;
    }
    case 'revoke': {
      const { revokeApiKey } = await api.request<{ revokeApiKey: Result<ApiKeyRow> }>(REVOKE_API_KEY, { id: command.key });
      const key = unwrap(revokeApiKey, 'ApiKey');
      screen.write(`revoked ${key.prefix}… (${key.id}) at ${key.revokedAt}: refused everywhere within a second\n`);
      return;
    }
    case 'rotate': {
      const { rotateApiKey } = await api.request<{ rotateApiKey: Result<IssuedKey> }>(ROTATE_API_KEY, { id: command.key, overlapSeconds: durationOption(command.overlap, 'overlap', MAX_OVERLAP_DAYS) });
      const rotated = unwrap(rotateApiKey, 'IssuedApiKey');
      const previous = rotated.previous;
      screen.write(`${issued(rotated)}${previous ? `old key ${previous.prefix}… (${previous.id}) ${oldKeyState(previous)}\n` : ''}`);
      return;
    }
  }
}

function issued({ key, apiKey }: IssuedKey): string {
  return `id     ${apiKey.id}\nroles  ${apiKey.roles.join(', ')}\nkey    ${key}\nThe key is shown once; only its hash is stored.\n`;
}

/**
 * What becomes of the old key of a rotation: refused now (no overlap: its end, revocation or
 * expiry, is already past), or working until the overlap ends.
 */
function oldKeyState(key: ApiKeyRow): string {
  const until = key.revokedAt ?? key.expiresAt;
  if (!key.active) return until ? `refused from ${until}` : 'refused';
  return until ? `works until ${until}` : 'still active';
}

function state(key: ApiKeyRow): string {
  if (key.revokedAt) return `${key.active ? 'active until' : 'revoked'} ${key.revokedAt}`;
  if (!key.active) return `expired ${key.expiresAt}`;
  return key.expiresAt ? `active until ${key.expiresAt}` : 'active';
}

/** The longest duration the key commands take: 100 years, so that every expiry is a date. */
const MAX_DURATION_DAYS = 36_500;
const UNIT_SECONDS = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** The longest rotation overlap the API takes (rotateApiKey's overlapSeconds). */
export const MAX_OVERLAP_DAYS = 30;

/**
 * A duration option of `npm run apikey` and `toolrun keys` (`--expires-in`, `--overlap`) in
 * seconds: 90d, 12h, 30m, 45s or seconds, at most `maxDays` (36500 unless said); anything else is a
 * ValidationError naming the option.
 */
export function durationOption(text: string, option: string, maxDays = MAX_DURATION_DAYS): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) throw new ValidationError(`--${option} must be a duration like 90d, 12h, 30m, 45s or a number of seconds`, option);
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
  if (seconds > maxDays * UNIT_SECONDS.d) throw new ValidationError(`--${option} must be at most ${maxDays}d${maxDays === MAX_DURATION_DAYS ? ' (100 years)' : ''}`, option);
  return seconds;
}
