import { GraphQLError, GraphQLScalarType } from 'graphql';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { isStorableTime } from '../model/keyset.js';
import { builder } from './builder.js';

/** What `Date.prototype.toISOString` writes: every stored time reaches the schema in this form. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

builder.addScalarType('JSON', JSONResolver);
// graphql-scalars' DateTime, except that a time already in ISO form is written as it is: its own
// serialize checks and parses the string into a Date, which JSON turns back into the same string
// (a few µs for every time of every event sent to a subscriber).
// A time the database cannot hold (year 0000, which graphql-scalars accepts) is refused.
const withinYears = (date: Date): Date => {
  if (!isStorableTime(date)) throw new GraphQLError(`DateTime must be in year 0001 or later, got ${date.toISOString()}`, { extensions: { code: 'BAD_USER_INPUT' } });
  return date;
};
const config = DateTimeResolver.toConfig();
builder.addScalarType(
  'DateTime',
  new GraphQLScalarType({
    ...config,
    serialize: (value: unknown) => (typeof value === 'string' && ISO_INSTANT.test(value) ? value : DateTimeResolver.serialize(value)),
    parseValue: (value: unknown) => withinYears(DateTimeResolver.parseValue(value) as Date),
    parseLiteral: (ast, variables) => withinYears(DateTimeResolver.parseLiteral(ast, variables) as Date),
  }),
);
