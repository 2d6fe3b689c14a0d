// npm run apikey -- create <tenant> [--name <name>] [--roles submitter,approver] [--expires-in 90d]
// npm run apikey -- list <tenant>
// npm run apikey -- revoke <tenant> <key id or prefix>
// npm run apikey -- rotate <tenant> <key id or prefix> [--overlap 1h]
// npm run apikey -- self-approval <tenant> on|off
import { parseArgs } from 'node:util';
import { type ApiKeyInfo, ROLES } from '../domain/tenants/api-keys.js';
import { durationOption, MAX_OVERLAP_DAYS } from '../cli/keys.js';
import { DomainError } from '../model/errors.js';
import { boot } from './run.js';

const USAGE = `usage: npm run apikey -- create <tenant> [--name <name>] [--roles ${ROLES.join(',')}] [--expires-in <duration>]
       npm run apikey -- list <tenant>
       npm run apikey -- revoke <tenant> <key id or prefix>
       npm run apikey -- rotate <tenant> <key id or prefix> [--overlap <duration>]   (the old key keeps working that long; default 0)
       npm run apikey -- self-approval <tenant> on|off   (may an approver decide calls its own key submitted)
durations: 90d, 12h, 30m, 45s or seconds, at most 36500d`;

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      roles: { type: 'string' },
      'expires-in': { type: 'string' },
      overlap: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
} catch (error) {
  // An unknown or malformed option: one line and the usage, not a stack.
  console.error(`toolrun: ${(error as Error).message.split('. ')[0]}\n${USAGE}`);
  process.exit(2);
}
const { positionals, values } = parsed;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const [command, tenant, target] = positionals;
const valid =
  tenant !== undefined &&
  ((command === 'create' && target === undefined) ||
    (command === 'list' && target === undefined) ||
    ((command === 'revoke' || command === 'rotate') && target !== undefined) ||
    (command === 'self-approval' && (target === 'on' || target === 'off')));
if (!valid) {
  console.error(USAGE);
  process.exit(2);
}
// An option the command does not take is a mistake (`rotate … --expires-in 1d` would rotate without
// the expiry it asked for), never something to ignore.
const OPTIONS_OF: Record<string, string[]> = { create: ['name', 'roles', 'expires-in'], rotate: ['overlap'] };
const stray = Object.keys(values).find((option) => option !== 'help' && !(OPTIONS_OF[command!] ?? []).includes(option));
if (stray) {
  const taken = OPTIONS_OF[command!] ?? [];
  console.error(`toolrun: ${command}: --${stray} is not an option of this command${taken.length > 0 ? ` (it takes ${taken.map((option) => `--${option}`).join(', ')})` : ''}\n${USAGE}`);
  process.exit(2);
}
const booted = await boot({ migrate: true });
const { services } = booted;
try {
  const { apiKeys } = services;
  if (command === 'create') {
    const roles = (values.roles ?? 'submitter,approver').split(',').map((role) => role.trim()).filter(Boolean);
    const expiresIn = values['expires-in'];
    // Read before the tenant is made, so that a refused duration writes nothing.
    const expiresAt = expiresIn === undefined ? null : new Date(Date.now() + durationOption(expiresIn, 'expires-in') * 1000);
    const { key, tenant: row, info } = await apiKeys.createKey(tenant!, { name: values.name ?? 'default', roles, expiresAt });
    console.log(`tenant ${row.name} (${row.id})\n${describe(info)}\nkey    ${key}\nThe key is shown once; only its hash is stored.`);
  } else {
    const row = await apiKeys.tenantNamed(tenant!);
    if (command === 'self-approval') {
      await apiKeys.setAllowSelfApproval(row.id, target === 'on');
      console.log(`tenant ${row.name} (${row.id})\nself-approval ${target}`);
    } else if (command === 'list') {
      const keys = await apiKeys.listKeys(row.id);
      console.log(`tenant ${row.name} (${row.id}): ${keys.length} key${keys.length === 1 ? '' : 's'}`);
      for (const info of keys) console.log(`\n${describe(info)}`);
    } else if (command === 'revoke') {
      const info = await apiKeys.revokeKey(row.id, target!);
      console.log(`${describe(info)}\nRevoked: refused everywhere from now on.`);
    } else {
      const { key, info, previous } = await apiKeys.rotateKey(row.id, target!, durationOption(values.overlap ?? '0', 'overlap', MAX_OVERLAP_DAYS));
      console.log(`new key:\n${describe(info)}\nkey    ${key}\nThe key is shown once; only its hash is stored.\n\nold key:\n${describe(previous)}`);
    }
  }
} catch (error) {
  if (!(error instanceof DomainError)) throw error;
  console.error(`toolrun: ${error.message}`);
  process.exitCode = 1;
} finally {
  await booted.closeServices();
}

function describe(info: ApiKeyInfo): string {
  const now = Date.now();
  const state = info.revokedAt ? `revoked ${info.revokedAt.toISOString()}` : info.expiresAt && info.expiresAt.getTime() <= now ? 'expired' : 'active';
  return [
    `id        ${info.id}`,
    `prefix    ${info.prefix}`,
    `name      ${info.name}`,
    `roles     ${info.roles.join(', ')}`,
    `state     ${state}`,
    `created   ${info.createdAt.toISOString()}`,
    `expires   ${info.expiresAt?.toISOString() ?? 'never'}`,
    `last used ${info.lastUsedAt?.toISOString() ?? 'never'}`,
  ].join('\n');
}

