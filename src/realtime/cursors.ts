import { ValidationError } from '../model/errors.js';

/** Event cursors are opaque: `(session, seq)` encoded, so a cursor only fits its own session. */
export function encodeEventCursor(sessionId: string, seq: number): string {
  return Buffer.from(`evt:${sessionId}:${seq}`).toString('base64url');
}

export function decodeEventCursor(cursor: string, sessionId: string): number {
  const text = Buffer.from(cursor, 'base64url').toString();
  const match = /^evt:([0-9a-f-]{36}):(\d{1,15})$/.exec(text);
  if (!match || match[1] !== sessionId) throw new ValidationError('after is not a cursor of this session', 'after');
  return Number(match[2]);
}

/** Tenant event cursors: `(tenant, tenant seq)` encoded, so a cursor only fits its own tenant's stream. */
export function encodeTenantEventCursor(tenantId: string, tenantSeq: number): string {
  return Buffer.from(`tevt:${tenantId}:${tenantSeq}`).toString('base64url');
}

export function decodeTenantEventCursor(cursor: string, tenantId: string): number {
  const text = Buffer.from(cursor, 'base64url').toString();
  const match = /^tevt:([0-9a-f-]{36}):(\d{1,15})$/.exec(text);
  if (!match || match[1] !== tenantId) throw new ValidationError('after is not a cursor of tenantEvents', 'after');
  return Number(match[2]);
}
