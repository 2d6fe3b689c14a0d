// npm run apikey -- create <tenant> [--name <name>] [--roles submitter,approver]
// npm run apikey -- self-approval <tenant> on|off
import { parseArgs } from 'node:util';
import { ROLES, type Role } from '../domain/tenants/api-keys.js';
import { ValidationError } from '../model/errors.js';
import { closeServices } from '../services.js';
import { boot } from './run.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { name: { type: 'string', default: 'default' }, roles: { type: 'string', default: 'submitter,approver' } },
});
const [command, tenant, setting] = positionals;
const selfApproval = command === 'self-approval' && (setting === 'on' || setting === 'off');
if (!tenant || (command !== 'create' && !selfApproval)) {
  console.error(
    `usage: npm run apikey -- create <tenant> [--name <name>] [--roles ${ROLES.join(',')}]\n` +
      `       npm run apikey -- self-approval <tenant> on|off   (may an approver decide calls its own key submitted)`,
  );
  process.exit(2);
}
const { services } = await boot({ migrate: true });
try {
  if (selfApproval) {
    const row = await services.apiKeys.ensureTenant(tenant);
    await services.apiKeys.setAllowSelfApproval(row.id, setting === 'on');
    console.log(`tenant ${row.name} (${row.id})\nself-approval ${setting}`);
  } else {
    const roles = values.roles.split(',').map((role) => role.trim()).filter(Boolean) as Role[];
    const { key, tenant: row } = await services.apiKeys.createKey(tenant, { name: values.name, roles });
    console.log(`tenant ${row.name} (${row.id})\nroles  ${roles.join(', ')}\nkey    ${key}\nThe key is shown once; only its hash is stored.`);
  }
} catch (error) {
  if (!(error instanceof ValidationError)) throw error;
  console.error(`toolrun: ${error.message}`);
  process.exitCode = 1;
} finally {
  await closeServices(services);
}
