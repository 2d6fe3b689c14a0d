import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import { v7 as uuidv7 } from 'uuid';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Key-sorted JSON, the input of every content hash. */
export function stableJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

export function newCallId(): string {
  return `call_${uuidv7().replaceAll('-', '')}`;
}

export function newRunId(): string {
  return `bg_${uuidv7().replaceAll('-', '')}`;
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
