// Tools a tenant registers at run time: HTTP tools (a signed POST per call) and external tools
// (a client completes each call). Every definition is validated before it is stored, and a name
// never shadows a built-in. (Managing them needs the admin role: src/resolvers/tools.ts.)
import type { Config } from '../../config.js';
import type { Db } from '../../db.js';
import type { RegisteredTool } from '../../generated/prisma/client.js';
import { AddressNotAllowedError, checkHostLiteral } from '../../tools/address-guard.js';
import { newSigningSecret } from '../../tools/http-tool.js';
import type { SecretBox } from './secret-box.js';
import { definitionOfRow, displayNameOf, REGISTERED_DEFAULTS, type RegisteredKind, type StoredDefinition } from '../../tools/registered-definition.js';
import type { RegisteredToolRow, RegisteredToolSource, ToolRegistry } from '../../tools/registry.js';
import type { RetryPolicy } from '../../model/retry.js';
import { TOOL_NAME_PATTERN, type ToolDefinition, type ToolHints, type ToolPolicy, type ToolScheduling } from '../../tools/types.js';
import { compileSchemaOrError } from '../../tools/validate-args.js';
import type { SchemaCompileAllowance } from './schema-compile-allowance.js';
import { NotFoundError, ToolNameConflictError, ValidationError } from '../../model/errors.js';
import { longerThan } from '../../model/text.js';
import { toStorable } from '../../model/storable-json.js';

/** How calls of a registered tool (or of an MCP server's tools) run; null or absent keeps the current value. */
export interface ToolSettingsPatch {
  policy?: ToolPolicy | null;
  scheduling?: ToolScheduling | null;
  timeoutMs?: number | null;
  retry?: {
    maxAttempts?: number | null;
    backoff?: { type?: RetryPolicy['backoff']['type'] | null; delayMs?: number | null; maxDelayMs?: number | null } | null;
  } | null;
}

export interface ToolSpecPatch extends ToolSettingsPatch {
  displayName?: string | null;
  description?: string | null;
  parametersSchema?: unknown;
  hints?: Partial<Record<keyof ToolHints, boolean | null>> | null;
}

export interface RegisterToolInput extends ToolSpecPatch {
  name: string;
  description: string;
}

export interface RegisterHttpToolInput extends RegisterToolInput {
  url: string;
}

export interface UpdateToolInput extends ToolSpecPatch {
  url?: string | null;
}

export const LIMITS = {
  displayName: 128,
  description: 4096,
  schemaBytes: 64 * 1024,
  urlLength: 2048,
  minTimeoutMs: 100,
  maxAttempts: 10,
  maxBackoffDelayMs: 600_000,
  maxBackoffMaxDelayMs: 3_600_000,
} as const;

/** A registered tool as the API returns it; `signingSecret` only when just created or rotated. */
export interface RegisteredToolResult {
  tool: ToolDefinition;
  signingSecret?: string;
}

/** The registered tools the tool registry resolves, read from their table, secrets decrypted. */
export class RegisteredToolStore implements RegisteredToolSource {
  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  async rows(tenantId: string, names?: string[]): Promise<RegisteredToolRow[]> {
    const rows = await this.db.registeredTool.findMany({
      where: { tenantId, ...(names ? { name: { in: names } } : {}) },
      select: { name: true, kind: true, definition: true, url: true, signingSecret: true, previousSigningSecret: true, previousSecretExpiresAt: true },
    });
    const now = Date.now();
    return rows.map(({ signingSecret, previousSigningSecret, previousSecretExpiresAt, ...row }) => {
      const previousValid = previousSigningSecret && previousSecretExpiresAt && previousSecretExpiresAt.getTime() > now;
      const stored = [signingSecret, previousValid ? previousSigningSecret : null].filter((value): value is string => value !== null);
      return { ...row, signingSecrets: stored.map((value) => this.secrets.decrypt(value)) };
    });
  }
}

export interface RegisteredToolServiceDeps {
  config: Config;
  db: Db;
  registry: ToolRegistry;
  secrets: SecretBox;
  schemaCompiles: SchemaCompileAllowance;
}

const MAX_SECRET_OVERLAP_SECONDS = 30 * 24 * 3600;

export class RegisteredToolService {
  constructor(private readonly deps: RegisteredToolServiceDeps) {}

  registerHttp(tenantId: string, input: RegisterHttpToolInput): Promise<RegisteredToolResult> {
    return this.register(tenantId, 'HTTP', input, checkToolUrl(this.deps.config, 'HTTP tools', input.url));
  }

  registerExternal(tenantId: string, input: RegisterToolInput): Promise<RegisteredToolResult> {
    return this.register(tenantId, 'EXTERNAL', input, null);
  }

  private async register(tenantId: string, kind: RegisteredKind, input: RegisterToolInput, url: string | null): Promise<RegisteredToolResult> {
    const name = input.name;
    if (!TOOL_NAME_PATTERN.test(name)) throw new ValidationError(`name must match ${TOOL_NAME_PATTERN.source}`, 'name');
    if (this.deps.registry.isBuiltin(name)) throw new ToolNameConflictError(name, true);
    const definition = this.validated(tenantId, kind, base(kind, name), input);
    const signingSecret = kind === 'HTTP' ? newSigningSecret() : null;
    let row: RegisteredTool;
    try {
      row = await this.deps.db.registeredTool.create({
        data: { tenantId, name, kind, definition: toStorable(definition) as object, url, signingSecret: signingSecret && this.deps.secrets.encrypt(signingSecret) },
      });
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') throw new ToolNameConflictError(name, false);
      throw error;
    }
    return { tool: definitionOfRow(row), ...(signingSecret ? { signingSecret } : {}) };
  }

  async update(tenantId: string, name: string, patch: UpdateToolInput): Promise<RegisteredToolResult> {
    const row = await this.deps.db.$transaction(async (tx) => {
      const locked = await tx.$queryRawUnsafe<Array<{ id: string }>>(
        `SELECT id::text AS id FROM registered_tool WHERE tenant_id = $1::uuid AND name = $2 FOR UPDATE`,
        tenantId,
        name,
      );
      if (locked.length === 0) throw this.notRegistered(name);
      const current = (await tx.registeredTool.findUnique({ where: { id: locked[0]!.id } }))!;
      const kind: RegisteredKind = current.kind === 'HTTP' ? 'HTTP' : 'EXTERNAL';
      if (kind !== 'HTTP' && patch.url != null) throw new ValidationError('Only HTTP tools have a url', 'url');
      const { kind: _kind, name: _name, url: _url, ...stored } = definitionOfRow(current);
      const definition = this.validated(tenantId, kind, stored, patch);
      const url = kind === 'HTTP' && patch.url != null ? checkToolUrl(this.deps.config, 'HTTP tools', patch.url) : current.url;
      return tx.registeredTool.update({ where: { id: current.id }, data: { definition: toStorable(definition) as object, url } });
    });
    return { tool: definitionOfRow(row) };
  }

  /**
   * Gives an HTTP tool a new signing secret, returned this once. The old one keeps signing beside
   * it (a second signature in `webhook-signature`) for `overlapSeconds`, so the receiver can switch
   * without refusing a call; 0 drops it at once.
   */
  async rotateSigningSecret(tenantId: string, name: string, overlapSeconds = 0): Promise<RegisteredToolResult> {
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_SECRET_OVERLAP_SECONDS) {
      throw new ValidationError(`overlapSeconds must be an integer from 0 to ${MAX_SECRET_OVERLAP_SECONDS}`, 'overlapSeconds');
    }
    const current = await this.deps.db.registeredTool.findUnique({ where: { tenantId_name: { tenantId, name } } });
    if (!current) throw this.notRegistered(name);
    if (current.kind !== 'HTTP') throw new ValidationError(`\`${name}\` is an external tool; only HTTP tools have a signing secret`, 'name');
    // Only one older secret signs beside the current one: a second rotation with an overlap, while the
    // first one's runs, would silently end it early for a receiver that holds only the oldest.
    const overlapEnds = current.previousSigningSecret !== null ? current.previousSecretExpiresAt : null;
    if (overlapSeconds > 0 && overlapEnds && overlapEnds.getTime() > Date.now()) {
      throw new ValidationError(
        `\`${name}\` is within the overlap of its last rotation (its previous secret signs until ${overlapEnds.toISOString()}): rotate again after that, or with overlapSeconds 0, which stops every older secret at once`,
        'overlapSeconds',
      );
    }
    const signingSecret = newSigningSecret();
    const { secrets } = this.deps;
    const keepOld = overlapSeconds > 0 && current.signingSecret !== null;
    const row = await this.deps.db.registeredTool.update({
      where: { id: current.id },
      data: {
        signingSecret: secrets.encrypt(signingSecret),
        previousSigningSecret: keepOld ? secrets.encrypt(secrets.decrypt(current.signingSecret!)) : null,
        previousSecretExpiresAt: keepOld ? new Date(Date.now() + overlapSeconds * 1000) : null,
      },
    });
    return { tool: definitionOfRow(row), signingSecret };
  }

  /**
   * Encrypts every stored secret still in plaintext or under a key other than the primary one
   * (after a key rotation, or from before encryption). Returns how many tools changed.
   */
  async reencryptSecrets(options: { tenantId?: string } = {}): Promise<number> {
    const { db, secrets } = this.deps;
    const rows = await db.registeredTool.findMany({
      where: { ...(options.tenantId ? { tenantId: options.tenantId } : {}), OR: [{ signingSecret: { not: null } }, { previousSigningSecret: { not: null } }] },
      select: { id: true, signingSecret: true, previousSigningSecret: true },
    });
    let changed = 0;
    for (const row of rows) {
      const stale = (value: string | null) => value !== null && secrets.needsReencryption(value);
      if (!stale(row.signingSecret) && !stale(row.previousSigningSecret)) continue;
      const again = (value: string | null) => (value === null ? null : secrets.encrypt(secrets.decrypt(value)));
      // Only if nothing rotated it meanwhile.
      const { count } = await db.registeredTool.updateMany({
        where: { id: row.id, signingSecret: row.signingSecret, previousSigningSecret: row.previousSigningSecret },
        data: { signingSecret: again(row.signingSecret), previousSigningSecret: again(row.previousSigningSecret) },
      });
      changed += count;
    }
    return changed;
  }

  /** Removes a registered tool. Calls already waiting on it are unaffected; new calls find it unavailable. */
  async remove(tenantId: string, name: string): Promise<RegisteredToolResult> {
    try {
      const row = await this.deps.db.registeredTool.delete({ where: { tenantId_name: { tenantId, name } } });
      return { tool: definitionOfRow(row) };
    } catch (error) {
      if ((error as { code?: string }).code === 'P2025') throw this.notRegistered(name);
      throw error;
    }
  }

  private notRegistered(name: string): Error {
    if (this.deps.registry.isBuiltin(name)) return new ValidationError(`\`${name}\` is a built-in tool; only registered tools can be changed`, 'name');
    return new NotFoundError('RegisteredTool', name);
  }

  /** Applies `patch` to `current` and validates the result as a whole. */
  private validated(tenantId: string, kind: RegisteredKind, current: StoredDefinition, patch: ToolSpecPatch): StoredDefinition {
    const { config } = this.deps;
    const next: StoredDefinition = {
      displayName: patch.displayName ?? current.displayName,
      description: patch.description ?? current.description,
      parametersSchema: (patch.parametersSchema ?? current.parametersSchema) as StoredDefinition['parametersSchema'],
      hints: { ...current.hints, ...withoutNulls(patch.hints ?? {}) },
      policy: patch.policy ?? current.policy,
      scheduling: patch.scheduling ?? current.scheduling,
      timeoutMs: patch.timeoutMs ?? current.timeoutMs,
      retry: {
        maxAttempts: patch.retry?.maxAttempts ?? current.retry.maxAttempts,
        backoff: { ...current.retry.backoff, ...withoutNulls(patch.retry?.backoff ?? {}) },
      },
    };
    const displayName = next.displayName.trim();
    if (displayName.length === 0 || longerThan(displayName, LIMITS.displayName)) {
      throw new ValidationError(`displayName must be 1 to ${LIMITS.displayName} characters`, 'displayName');
    }
    next.displayName = displayName;
    if (next.description.trim().length === 0 || longerThan(next.description, LIMITS.description)) {
      throw new ValidationError(`description must be 1 to ${LIMITS.description} characters`, 'description');
    }
    // The size first: compiling a schema costs time in proportion to it.
    if (Buffer.byteLength(JSON.stringify(next.parametersSchema)) > LIMITS.schemaBytes) {
      throw new ValidationError(`parametersSchema must be at most ${LIMITS.schemaBytes} bytes of JSON`, 'parametersSchema');
    }
    const schemaError = this.deps.schemaCompiles.charge(tenantId, () => compileSchemaOrError(next.parametersSchema));
    if (schemaError) throw new ValidationError(`parametersSchema is not a usable JSON Schema: ${schemaError}`, 'parametersSchema');
    if (kind === 'EXTERNAL' && next.hints.supportsBackground) {
      throw new ValidationError('External tools cannot run in the background (their calls wait for a completion)', 'hints.supportsBackground');
    }
    checkTimeoutAndRetry(next, config.MAX_CALL_TIMEOUT_MS, kind === 'EXTERNAL' ? ' (the completion deadline)' : '');
    return next;
  }
}

function base(kind: RegisteredKind, name: string): StoredDefinition {
  return {
    displayName: displayNameOf(name),
    description: '',
    parametersSchema: { type: 'object' },
    hints: { ...REGISTERED_DEFAULTS.hints },
    policy: REGISTERED_DEFAULTS.policy,
    scheduling: REGISTERED_DEFAULTS.scheduling,
    timeoutMs: REGISTERED_DEFAULTS.timeoutMs[kind],
    retry: { maxAttempts: REGISTERED_DEFAULTS.retry.maxAttempts, backoff: { ...REGISTERED_DEFAULTS.retry.backoff } },
  };
}

function withoutNulls<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== null && entry !== undefined)) as { [K in keyof T]?: Exclude<T[K], null> };
}

/** The timeout and retry policy of a registered tool or of an MCP server's tools. */
export function checkTimeoutAndRetry(settings: { timeoutMs: number; retry: RetryPolicy }, maxTimeout: number, timeoutNote = ''): void {
  const { timeoutMs, retry } = settings;
  if (!Number.isInteger(timeoutMs) || timeoutMs < LIMITS.minTimeoutMs || timeoutMs > maxTimeout) {
    throw new ValidationError(`timeoutMs must be an integer from ${LIMITS.minTimeoutMs} to ${maxTimeout}${timeoutNote}`, 'timeoutMs');
  }
  const { maxAttempts, backoff } = retry;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > LIMITS.maxAttempts) {
    throw new ValidationError(`retry.maxAttempts must be an integer from 1 to ${LIMITS.maxAttempts}`, 'retry.maxAttempts');
  }
  if (!Number.isInteger(backoff.delayMs) || backoff.delayMs < 0 || backoff.delayMs > LIMITS.maxBackoffDelayMs) {
    throw new ValidationError(`retry.backoff.delayMs must be an integer from 0 to ${LIMITS.maxBackoffDelayMs}`, 'retry.backoff.delayMs');
  }
  if (!Number.isInteger(backoff.maxDelayMs) || backoff.maxDelayMs < backoff.delayMs || backoff.maxDelayMs > LIMITS.maxBackoffMaxDelayMs) {
    throw new ValidationError(`retry.backoff.maxDelayMs must be an integer from delayMs to ${LIMITS.maxBackoffMaxDelayMs}`, 'retry.backoff.maxDelayMs');
  }
}

/**
 * An endpoint URL a tenant gives (an HTTP tool's, an MCP server's): absolute http(s), no
 * credentials in it (`credentialsHint` says where they go), a host the address guard allows.
 */
export function checkToolUrl(
  config: Pick<Config, 'HTTP_TOOL_ALLOW_PRIVATE' | 'HTTP_TOOL_ALLOW_LOOPBACK'>,
  what: string,
  value: string,
  credentialsHint = '',
): string {
  if (value.length > LIMITS.urlLength) throw new ValidationError(`url must be at most ${LIMITS.urlLength} characters`, 'url');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError('url is not a valid absolute URL', 'url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError(`url must use http or https, not ${url.protocol}`, 'url');
  if (url.username || url.password) throw new ValidationError(`url must not contain credentials${credentialsHint}`, 'url');
  try {
    checkHostLiteral(url, { allowPrivate: config.HTTP_TOOL_ALLOW_PRIVATE, allowLoopback: config.HTTP_TOOL_ALLOW_LOOPBACK }, what);
  } catch (error) {
    if (error instanceof AddressNotAllowedError) throw new ValidationError(`url: ${error.message}`, 'url');
    throw error;
  }
  return url.href;
}
