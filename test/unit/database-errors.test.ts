// Which database failures are a lost connection (retried, answered SERVICE_UNAVAILABLE), as Prisma
// and node-postgres throw them.
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { Prisma } from '../../src/generated/prisma/client.js';
import { isInfrastructureError } from '../../src/logging/infrastructure-errors.js';
import { isTransientDatabaseError } from '../../src/sql.js';

/** A raw query's failure as Prisma's driver adapter reports it (P2010, the adapter's error as its cause). */
function rawQueryFailure(cause: Record<string, unknown>, message: string) {
  return new Prisma.PrismaClientKnownRequestError(`Raw query failed. Code: \`N/A\`. Message: \`${message}\``, {
    code: 'P2010',
    clientVersion: Prisma.prismaVersion.client,
    meta: { driverAdapterError: Object.assign(new Error(message), { name: 'DriverAdapterError', cause }) },
  });
}

describe('isTransientDatabaseError', () => {
  it('takes a raw query on a connection the server closed, or a database not reachable, for a lost connection', () => {
    expect(isTransientDatabaseError(rawQueryFailure({ kind: 'ConnectionClosed' }, 'Server has closed the connection.'))).toBe(true);
    expect(isTransientDatabaseError(rawQueryFailure({ kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 }, "Can't reach database server at 127.0.0.1:5432"))).toBe(true);
    expect(isTransientDatabaseError(rawQueryFailure({ kind: 'SocketTimeout' }, 'Socket timeout (the database failed to respond to a query within the configured timeout).'))).toBe(true);
  });

  it('does not take a raw query that PostgreSQL refused for one', () => {
    expect(isTransientDatabaseError(rawQueryFailure({ kind: 'postgres', code: '42703', severity: 'ERROR', message: 'column "x" does not exist' }, 'column "x" does not exist'))).toBe(false);
    expect(isTransientDatabaseError(rawQueryFailure({ kind: 'UniqueConstraintViolation', constraint: { fields: ['id'] } }, 'Unique constraint failed'))).toBe(false);
  });
});

describe('isInfrastructureError', () => {
  // What yoga logs when it masks a resolver's error: graphql-js's GraphQLError around what was thrown.
  const asResolverError = (error: Error) => new GraphQLError(error.message, { originalError: error });

  it('sees a lost connection inside the GraphQLError a resolver failed with (logged once per interval, without its stack)', () => {
    expect(isInfrastructureError(asResolverError(rawQueryFailure({ kind: 'ConnectionClosed' }, 'Server has closed the connection.')))).toBe(true);
  });

  it('leaves any other resolver failure a fault', () => {
    expect(isInfrastructureError(asResolverError(rawQueryFailure({ kind: 'postgres', code: '42703' }, 'column "x" does not exist')))).toBe(false);
    expect(isInfrastructureError(asResolverError(new TypeError("Cannot read properties of undefined (reading 'id')")))).toBe(false);
  });
});
