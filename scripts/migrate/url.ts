// Small helpers around postgresql:// connection URLs.

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/toolrun';

/** DATABASE_URL, or the project's default. */
export function databaseUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.DATABASE_URL?.trim();
  return url ? url : DEFAULT_DATABASE_URL;
}

function parse(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`invalid database URL ${JSON.stringify(redact(url))}`);
  }
  if (parsed.protocol !== 'postgresql:' && parsed.protocol !== 'postgres:') {
    throw new Error(`the database URL must start with postgresql://, got ${JSON.stringify(redact(url))}`);
  }
  return parsed;
}

/** Throws a clear error unless `url` is a postgresql:// URL naming a database. */
export function checkDatabaseUrl(url: string): void {
  databaseName(url);
}

/** The URL's database name (node-postgres would default to the user name; we require one). */
export function databaseName(url: string): string {
  const name = decodeURIComponent(parse(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error(`the database URL names no database: ${JSON.stringify(redact(url))}`);
  return name;
}

/** The same server and credentials, another database. */
export function withDatabase(url: string, name: string): string {
  const parsed = parse(url);
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

/** The server's maintenance database, used to create and drop databases. */
export function maintenanceUrl(url: string): string {
  return withDatabase(url, 'postgres');
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
}
