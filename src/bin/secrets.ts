// npm run secrets -- reencrypt    encrypt every stored secret with the first of SECRET_KEYS
//                                 (after adding a key in front, or for secrets stored before encryption)
// npm run secrets -- new-key <id> print a new key for SECRET_KEYS
import { SecretBox } from '../domain/tenants/secret-box.js';
import { boot } from './run.js';

const [command, id] = process.argv.slice(2);
if (command === 'new-key' && id && /^[A-Za-z0-9_-]{1,32}$/.test(id)) {
  console.log(SecretBox.newKeySpec(id));
  process.exit(0);
}
if (command !== 'reencrypt') {
  console.error('usage: npm run secrets -- reencrypt\n       npm run secrets -- new-key <id>   (letters, digits, _ and -)');
  process.exit(2);
}
const booted = await boot({ migrate: true });
const { services } = booted;
try {
  const changed = await services.registeredTools.reencryptSecrets();
  console.log(`re-encrypted the signing secrets of ${changed} tool${changed === 1 ? '' : 's'}`);
} finally {
  await booted.closeServices();
}
