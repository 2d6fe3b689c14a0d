// Which input the input limits let through as any text: the arguments of a tool (a call's, a
// background run's), stored losslessly; everywhere else U+0000 and lone surrogates are refused.
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { checkOperationInput } from '../../src/server/plugins/use-input-limits.js';

const LIMITS = { maxJsonDepth: 64, maxCallsPerRequest: 1000, maxQueryDepth: 12 };
const check = (source: string, variableValues: Record<string, unknown> = {}) => checkOperationInput({ document: parse(source), variableValues }, LIMITS);

describe("a background run's args", () => {
  it('may hold U+0000 and lone surrogates, as a literal or as a variable used only there', () => {
    expect(check('mutation { spawnBackground(sessionId: "s", tool: "t", args: {label: "a\\u0000b"}) { __typename } }')).toBeNull();
    expect(check('mutation($a: JSON!) { spawnBackground(sessionId: "s", tool: "t", args: $a) { __typename } }', { a: { label: 'x\ud800y', deep: ['\u0000'] } })).toBeNull();
  });

  it('are refused when the same variable is also used where text is stored as it is, and the title never holds them', () => {
    const shared = check('mutation($a: JSON!) { spawnBackground(sessionId: "s", tool: "t", args: $a) { __typename } createSession(metadata: $a) { __typename } }', { a: { label: 'a\u0000b' } });
    expect(shared?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: '$a.label' });
    const title = check('mutation { spawnBackground(sessionId: "s", tool: "t", args: {}, title: "a\\u0000b") { __typename } }');
    expect(title?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'spawnBackground(title:)' });
  });

  it('are checked for depth, numbers and __proto__ like any input', () => {
    expect(check('mutation { spawnBackground(sessionId: "s", tool: "t", args: {__proto__: 1}) { __typename } }')?.extensions).toMatchObject({ field: 'spawnBackground(args:).__proto__' });
    expect(check('mutation($a: JSON!) { spawnBackground(sessionId: "s", tool: "t", args: $a) { __typename } }', { a: { n: Number.POSITIVE_INFINITY } })?.extensions).toMatchObject({ field: '$a.n' });
  });
});
