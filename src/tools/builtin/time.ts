import { ToolFailureError } from '../../model/outcome.js';
import { defineBuiltinTool } from '../types.js';

/** The UTC offset of a time zone at an instant, as `+HH:MM`. */
function utcOffset(timeZone: string, at: Date): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((part) => part.type === 'timeZoneName')?.value;
  const match = name?.match(/^GMT([+-]\d{2}:\d{2})$/);
  return match ? match[1]! : '+00:00';
}

/** Wall-clock time in a time zone as ISO 8601 with its offset, e.g. `2024-05-01T14:00:00.000+02:00`. */
function localIso(timeZone: string, at: Date, offset: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  const millis = String(at.getUTCMilliseconds()).padStart(3, '0');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${millis}${offset}`;
}

export const getCurrentTime = defineBuiltinTool({
  name: 'get_current_time',
  description:
    'Returns the current time: `currentTime` (ISO 8601, UTC), and in the requested IANA time zone (default UTC) `localTime` with its `utcOffset`.',
  parametersSchema: {
    type: 'object',
    properties: {
      timezone: { type: 'string', description: "IANA time zone, e.g. 'UTC', 'Europe/Paris', 'America/New_York'", minLength: 1 },
    },
    additionalProperties: false,
  },
  hints: { readonly: true, idempotent: true },
  timeoutMs: 5000,
  async execute(args) {
    const requested = typeof args.timezone === 'string' ? args.timezone : 'UTC';
    let timezone: string;
    try {
      const resolved = new Intl.DateTimeFormat('en-US', { timeZone: requested }).resolvedOptions().timeZone;
      // Keep the caller's name for an alias (ICU reports Asia/Kolkata as Asia/Calcutta); fix only its case.
      timezone = resolved.toLowerCase() === requested.toLowerCase() ? resolved : requested;
    } catch {
      throw new ToolFailureError({
        class: 'INVALID_REQUEST',
        code: 'invalid_timezone',
        message: `Unknown time zone ${JSON.stringify(requested)}; use an IANA name such as 'Europe/Paris'`,
      });
    }
    const now = new Date();
    const offset = utcOffset(timezone, now);
    return { currentTime: now.toISOString(), timezone, localTime: localIso(timezone, now, offset), utcOffset: offset, epochMs: now.getTime() };
  },
});
