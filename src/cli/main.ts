// toolrun <command>: the operator's and developer's command line. Every command talks to a running API: TOOLRUN_URL (or --url; default http://127.0.0.1:4000/graphql) with TOOLRUN_API_KEY
// (or --key). Expected failures print one line and exit 1; usage errors exit 2.
import { parseArgs } from 'node:util';
import { DomainError } from '../model/errors.js';
import { approveCall, cancelCall, cancelTask, listCalls, listTasks, rejectCall, runTool, watchSession } from './commands.js';
import { keysCommand } from './keys.js';
import { printable, type Screen, stdoutScreen } from './render.js';
import { CliError, httpTransport, type Transport } from './transport.js';

export const USAGE = `usage: toolrun <command> [options]

  run <tool> [--args JSON] [--session ID]     run one call, with live progress; exit 0 if it succeeded
  watch <session>                             a live table of the session's calls (Ctrl-C to stop)
  calls list <session>                        every call of the session, newest batch first
  calls cancel <session> <call-id>            cancel a call
  calls approve <session> <call-id>           approve a call awaiting approval
  calls reject <session> <call-id> --reason TEXT
                                              reject it: it fails (approval_rejected) with the reason
  tasks list <session>                        every background run and monitor of the session, newest first
  tasks cancel <task-id>                      cancel a background run
  keys list                                   the API keys of your key's tenant (admin role)
  keys create [--name N] [--roles R,…] [--expires-in 90d]
                                              a new key, shown once; unless given: named "default", roles submitter,approver, no expiry
  keys revoke <key-id|prefix>                 refused everywhere within a second
  keys rotate <key-id|prefix> [--overlap 1h]  a new key with the same name and roles; the old one works for the overlap
  (a tenant's first key: npm run apikey -- create <tenant> --roles admin)

API options: --url URL (TOOLRUN_URL, default http://127.0.0.1:4000/graphql), --key KEY (TOOLRUN_API_KEY)
Durations (--expires-in, --overlap): 90d, 12h, 30m, 45s or seconds; --expires-in at most 36500d, --overlap at most 30d
`;

class UsageError extends Error {}

/** How many arguments a command takes after its second word (the tool of `run`, the session of `watch`). */
const ARGUMENTS_AFTER: Record<string, number> = {
  run: 0,
  watch: 0,
  'keys list': 0,
  'keys create': 0,
  'keys revoke': 1,
  'keys rotate': 1,
  'calls list': 1,
  'calls cancel': 2,
  'calls approve': 2,
  'calls reject': 2,
  'tasks list': 1,
  'tasks cancel': 1,
};

/** The options every command takes. */
const COMMON_OPTIONS = ['url', 'key', 'help'];

/** The options of each command beyond the common ones. */
const OPTIONS_OF: Record<string, string[]> = {
  run: ['args', 'session'],
  'keys create': ['name', 'roles', 'expires-in'],
  'keys rotate': ['overlap'],
  'calls reject': ['reason'],
};

export async function main(argv: string[], screen: Screen = stdoutScreen, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      args: { type: 'string' },
      session: { type: 'string' },
      name: { type: 'string' },
      roles: { type: 'string' },
      'expires-in': { type: 'string' },
      overlap: { type: 'string' },
      reason: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, sub, ...rest] = positionals;
  if (values.help || !command) {
    screen.write(USAGE);
    return values.help ? 0 : 2;
  }
  const name = ARGUMENTS_AFTER[`${command} ${sub ?? ''}`] !== undefined ? `${command} ${sub}` : command;
  const expected = ARGUMENTS_AFTER[name];
  if (expected !== undefined && rest.length > expected) throw new UsageError(`${command} ${sub}: unexpected argument ${JSON.stringify(rest[expected])}`);
  // An option the command does not take is a mistake (`keys rotate … --expires-in 1d` would rotate
  // without the expiry it asked for), never something to ignore.
  if (expected !== undefined) {
    const taken = OPTIONS_OF[name] ?? [];
    const stray = Object.keys(values).find((option) => !COMMON_OPTIONS.includes(option) && !taken.includes(option));
    if (stray) throw new UsageError(`${name}: --${stray} is not an option of this command${taken.length > 0 ? ` (it takes ${taken.map((option) => `--${option}`).join(', ')})` : ''}`);
  }
  // An empty variable is as good as none; an empty --key is a mistake, not a reason to use the variable's key.
  if (values.key !== undefined && values.key.trim() === '') throw new UsageError('--key is empty');
  // Likewise an empty --session: not a reason to run in a new session.
  if (values.session !== undefined && values.session.trim() === '') throw new UsageError('--session is empty');
  const apiKey = values.key || env.TOOLRUN_API_KEY || undefined;
  if (!apiKey) throw new UsageError('no API key: set TOOLRUN_API_KEY or pass --key');
  const api = httpTransport({ url: values.url || env.TOOLRUN_URL || 'http://127.0.0.1:4000/graphql', apiKey });
  try {
    return await apiCommand(api, screen, command, sub, rest, values);
  } finally {
    await api.close();
  }
}

async function apiCommand(
  api: Transport,
  screen: Screen,
  command: string,
  sub: string | undefined,
  rest: string[],
  values: { args?: string; session?: string; name?: string; roles?: string; 'expires-in'?: string; overlap?: string; reason?: string },
): Promise<number> {
  switch (command) {
    case 'keys': {
      if (sub === 'list') return (await keysCommand(api, screen, { action: 'list' }), 0);
      if (sub === 'create') return (await keysCommand(api, screen, { action: 'create', name: values.name ?? 'default', roles: values.roles ?? 'submitter,approver', expiresIn: values['expires-in'] }), 0);
      if (sub === 'revoke' || sub === 'rotate') {
        const [key] = rest;
        if (!key) throw new UsageError(`keys ${sub}: expected a key id or prefix`);
        return (await keysCommand(api, screen, sub === 'revoke' ? { action: 'revoke', key } : { action: 'rotate', key, overlap: values.overlap ?? '0' }), 0);
      }
      throw new UsageError(`unknown keys command ${sub ?? ''}`);
    }
    case 'run': {
      if (!sub) throw new UsageError('run: expected a tool name');
      let args: unknown = {};
      if (values.args !== undefined) {
        try {
          args = JSON.parse(values.args);
        } catch (error) {
          throw new UsageError(`--args is not JSON: ${(error as Error).message}`);
        }
        if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new UsageError('--args must be a JSON object, e.g. \'{"a": 1}\'');
      }
      return runTool(api, screen, { tool: sub, args, sessionId: values.session });
    }
    case 'watch': {
      if (!sub) throw new UsageError('watch: expected a session id');
      await watchSession(api, screen, sub);
      return 0;
    }
    case 'calls': {
      const [session, callId] = rest;
      if (!session) throw new UsageError(`calls ${sub ?? ''}: expected a session id`);
      if (sub === 'list') return (await listCalls(api, screen, session), 0);
      if (!callId) throw new UsageError(`calls ${sub ?? ''}: expected a session id and a call id`);
      if (sub === 'cancel') return (await cancelCall(api, screen, session, callId), 0);
      if (sub === 'approve') return (await approveCall(api, screen, session, callId), 0);
      if (sub === 'reject') {
        if (!values.reason?.trim()) throw new UsageError('calls reject: --reason is required (the call fails with it)');
        return (await rejectCall(api, screen, session, callId, values.reason), 0);
      }
      throw new UsageError(`unknown calls command ${sub ?? ''}`);
    }
    case 'tasks': {
      const [id] = rest;
      if (!id) throw new UsageError(`tasks ${sub ?? ''}: expected ${sub === 'cancel' ? 'a task id' : 'a session id'}`);
      if (sub === 'list') return (await listTasks(api, screen, id), 0);
      if (sub === 'cancel') return (await cancelTask(api, screen, id), 0);
      throw new UsageError(`unknown tasks command ${sub ?? ''}`);
    }
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

/** Runs the CLI as a process: one line for an expected failure, the exit status set. */
export async function runCli(argv: string[]): Promise<void> {
  // Whoever reads the output stopped (`toolrun calls list … | head`): there is no one left to tell anything.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  try {
    process.exitCode = await main(argv);
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))) {
      // node's own option errors run over several lines: one line, its sentences side by side.
      console.error(`toolrun: ${printable(error.message.replace(/\s*\n\s*/g, ' '))}\n\n${USAGE}`);
      process.exitCode = 2;
    } else if (error instanceof CliError || error instanceof DomainError) {
      // The message may carry what a server sent (an error's text, the start of a body that is not
      // GraphQL): one line, with nothing a terminal would act on.
      console.error(`toolrun: ${printable(error.message)}`);
      process.exitCode = 1;
    } else {
      throw error;
    }
  }
}
