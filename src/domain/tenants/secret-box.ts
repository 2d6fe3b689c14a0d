// Secrets at rest (HTTP tools' signing secrets): AES-256-GCM under server keys with ids. The first
// key encrypts; any configured key decrypts, so keys rotate by putting a new one first, running
// `npm run secrets -- reencrypt`, then dropping the old one. A stored value is
// `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url); a value from before encryption (`whsec_…`)
// is still read, and re-encrypted by the same command.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../config.js';

const VERSION = 'v1';
const PLAINTEXT_PREFIX = 'whsec_';
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** A ConfigError: at start-up, a SECRET_KEYS that does not parse ends the process in one line. */
export class SecretKeysError extends ConfigError {
  override name = 'SecretKeysError';
}

export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  readonly primaryKeyId: string;

  /** `<id>:<base64 of 32 bytes>`, comma-separated; the first encrypts. */
  constructor(spec: string) {
    const entries = spec
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part): [string, Buffer] => {
        const [id, material, ...rest] = part.split(':');
        const key = Buffer.from(material ?? '', 'base64');
        if (!id || !KEY_ID.test(id) || rest.length > 0 || key.length !== 32) {
          throw new SecretKeysError('SECRET_KEYS: expected `<id>:<base64 of 32 random bytes>`, comma-separated (ids: letters, digits, _ and -)');
        }
        return [id, key];
      });
    if (entries.length === 0) throw new SecretKeysError('SECRET_KEYS: no key given');
    this.keys = new Map(entries);
    if (this.keys.size !== entries.length) throw new SecretKeysError('SECRET_KEYS: a key id is given twice');
    this.primaryKeyId = entries[0]![0];
  }

  /** The configured keys, or the ones kept in `<dataDir>/secret-keys` (made on first use). */
  static fromSettings(settings: { SECRET_KEYS?: string; TOOLRUN_DATA_DIR: string }): SecretBox {
    if (settings.SECRET_KEYS) return new SecretBox(settings.SECRET_KEYS);
    const file = join(settings.TOOLRUN_DATA_DIR, 'secret-keys');
    let spec: string;
    try {
      spec = readFileSync(file, 'utf8').trim();
    } catch {
      spec = `${new Date().toISOString().slice(0, 10).replaceAll('-', '')}:${randomBytes(32).toString('base64')}`;
      try {
        mkdirSync(settings.TOOLRUN_DATA_DIR, { recursive: true });
        // Written whole under another name, then linked into place: a process starting at the same
        // moment never reads a half-written file, and whichever link lands first wins.
        const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
        writeFileSync(draft, `${spec}\n`, { mode: 0o600 });
        try {
          linkSync(draft, file);
        } catch {
          spec = readFileSync(file, 'utf8').trim();
        } finally {
          unlinkSync(draft);
        }
        chmodSync(file, 0o600);
      } catch (error) {
        // A directory the process may not write (a container's, run as a non-root user) ends the
        // start in one line that says what to set, rather than with a stack.
        const code = (error as NodeJS.ErrnoException).code;
        if (!code) throw error;
        throw new SecretKeysError(
          `without SECRET_KEYS the key that encrypts secrets at rest is kept in ${resolve(file)}, which cannot be made or read (${code}): set SECRET_KEYS (\`npm run secrets -- new-key <id>\` makes one) or TOOLRUN_DATA_DIR`,
        );
      }
    }
    return new SecretBox(spec);
  }

  static newKeySpec(id: string): string {
    return `${id}:${randomBytes(32).toString('base64')}`;
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.primaryKeyId)!, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, this.primaryKeyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  decrypt(stored: string): string {
    if (stored.startsWith(PLAINTEXT_PREFIX)) return stored;
    const [version, keyId, iv, tag, ciphertext] = stored.split('.');
    if (version !== VERSION || !keyId || iv === undefined || tag === undefined || ciphertext === undefined) throw new SecretKeysError('a stored secret is malformed');
    const key = this.keys.get(keyId);
    if (!key) throw new SecretKeysError(`a stored secret is encrypted with key \`${keyId}\`, which SECRET_KEYS does not have`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Whether a stored value is plaintext or under a key other than the primary one. */
  needsReencryption(stored: string): boolean {
    return stored.startsWith(PLAINTEXT_PREFIX) || stored.split('.')[1] !== this.primaryKeyId;
  }
}
