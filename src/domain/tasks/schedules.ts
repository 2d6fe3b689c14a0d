// Schedules of background runs (DESIGN.md §4): exactly one of a 5-field cron expression
// (recurring) or an RFC 3339 instant (one-shot), in an IANA timezone (default UTC).
import { CronExpressionParser } from 'cron-parser';
import { InvalidScheduleError } from '../../model/errors.js';
import { cutAt } from '../../model/text.js';

export const MAX_ACTIVE_SCHEDULES_PER_SESSION = 10;
/**
 * How far in the past a one-shot `scheduledAt` may lie and still be taken (it then fires at once):
 * "in a second" sent by a client whose clock is a little behind, or whose request was slow, is
 * not a mistake. Anything older is refused.
 */
export const SCHEDULED_AT_GRACE_MS = 10_000;

export type ScheduleType = 'CRON' | 'ONCE';

export interface ScheduleInput {
  cronExpression?: string | null;
  scheduledAt?: string | null;
  timezone?: string | null;
}

export interface ParsedSchedule {
  type: ScheduleType;
  cronExpression: string | null;
  scheduledAt: Date | null;
  timezone: string;
  nextTriggerAt: Date;
}

// RFC 3339 date-time: full date, `T` (or space), time with optional fraction, and an offset.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function parseSchedule(input: unknown, options: { allowSeconds?: boolean; now?: Date } = {}): ParsedSchedule {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidScheduleError('schedule must be an object with cronExpression or scheduledAt', 'schedule');
  }
  const raw = input as Record<string, unknown>;
  const unknownKeys = Object.keys(raw).filter((key) => !['cronExpression', 'scheduledAt', 'timezone'].includes(key));
  if (unknownKeys.length > 0) {
    throw new InvalidScheduleError(`schedule has unknown field${unknownKeys.length > 1 ? 's' : ''} ${unknownKeys.join(', ')}`, 'schedule');
  }
  const cronExpression = optionalString(raw.cronExpression, 'schedule.cronExpression');
  const scheduledAtText = optionalString(raw.scheduledAt, 'schedule.scheduledAt');
  if (cronExpression === null && scheduledAtText === null) {
    throw new InvalidScheduleError('schedule must include exactly one of cronExpression (recurring) or scheduledAt (one-shot)', 'schedule');
  }
  if (cronExpression !== null && scheduledAtText !== null) {
    throw new InvalidScheduleError('schedule must not include both cronExpression and scheduledAt; provide exactly one', 'schedule');
  }
  const timezone = parseTimezone(optionalString(raw.timezone, 'schedule.timezone') ?? 'UTC');
  const now = options.now ?? new Date();

  if (scheduledAtText !== null) {
    const scheduledAt = parseRfc3339(scheduledAtText);
    if (scheduledAt.getTime() < now.getTime() - SCHEDULED_AT_GRACE_MS) {
      throw new InvalidScheduleError(`scheduledAt ${quoted(scheduledAtText)} is in the past (now is ${now.toISOString()}); a one-shot schedule needs a future time`, 'schedule.scheduledAt');
    }
    return { type: 'ONCE', cronExpression: null, scheduledAt, timezone, nextTriggerAt: scheduledAt };
  }
  const expression = cronExpression!.split(/\s+/).join(' ');
  const fields = expression.split(' ').length;
  const allowed = options.allowSeconds ? [5, 6] : [5];
  if (!allowed.includes(fields)) {
    throw new InvalidScheduleError(
      `cronExpression must have 5 fields (minute hour day-of-month month day-of-week), got ${fields}: ${quoted(expression)}`,
      'schedule.cronExpression',
    );
  }
  if (HASHED_FIELD.test(expression)) {
    // cron-parser takes Jenkins' `H` as a random value, drawn again at each parse: the reported next
    // trigger and the queue's firings would each pick their own.
    throw new InvalidScheduleError(`cronExpression ${quoted(expression)} is invalid: \`H\` (a hashed value) is not standard cron; name the minute, hour or day`, 'schedule.cronExpression');
  }
  return { type: 'CRON', cronExpression: expression, scheduledAt: null, timezone, nextTriggerAt: nextCronTrigger(expression, timezone, now) };
}

/** A field holding Jenkins' `H` (not a letter of a month or day name, such as THU). */
const HASHED_FIELD = /(^|[^a-z])h(?![a-z])/i;

/**
 * Where a schedule stands: ACTIVE (fires on its cadence), PAUSED (enabled, fires nothing until
 * resumed), CANCELED, or FINISHED (a one-shot that fired).
 */
export type ScheduleStatus = 'ACTIVE' | 'PAUSED' | 'CANCELED' | 'FINISHED';

export function scheduleStatus(schedule: { enabled: boolean; pausedAt: Date | null; canceledAt: Date | null }): ScheduleStatus {
  if (schedule.enabled) return schedule.pausedAt ? 'PAUSED' : 'ACTIVE';
  return schedule.canceledAt ? 'CANCELED' : 'FINISHED';
}

/** When a schedule resumed at `now` fires next: its cron's next time after now, or a one-shot's time (at once if it passed meanwhile). */
export function nextTriggerOnResume(schedule: { type: string; cronExpression: string | null; scheduledAt: Date | null; timezone: string }, now: Date): Date {
  if (schedule.type === 'CRON' && schedule.cronExpression) return nextCronTrigger(schedule.cronExpression, schedule.timezone, now);
  return new Date(Math.max(schedule.scheduledAt?.getTime() ?? 0, now.getTime()));
}

/** The next time a (valid) cron expression fires after `after`. */
export function nextCronTrigger(expression: string, timezone: string, after: Date = new Date()): Date {
  try {
    return CronExpressionParser.parse(expression, { tz: timezone, currentDate: after, strict: false }).next().toDate();
  } catch (error) {
    throw new InvalidScheduleError(`cronExpression ${quoted(expression)} is invalid: ${(error as Error).message}`, 'schedule.cronExpression');
  }
}

function optionalString(value: unknown, field: InvalidScheduleError['field']): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new InvalidScheduleError(`${field} must be a string`, field);
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** A value as an error message repeats it: quoted, and cut after 100 characters (input may be huge). */
function quoted(value: string): string {
  return JSON.stringify(value.length > 100 ? `${cutAt(value, 100)}…` : value);
}

/** Validates an IANA timezone name and returns its canonical spelling. */
export function parseTimezone(name: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw new InvalidScheduleError(`timezone ${quoted(name)} is not an IANA timezone (e.g. UTC, Europe/Paris)`, 'schedule.timezone');
  }
}

/** True when `text` is an RFC 3339 date-time. */
export function isRfc3339(text: string): boolean {
  try {
    parseRfc3339(text);
    return true;
  } catch {
    return false;
  }
}

function parseRfc3339(text: string): Date {
  const match = RFC3339.exec(text);
  const invalid = () => new InvalidScheduleError(`scheduledAt must be an RFC 3339 date-time (e.g. 2026-04-16T15:30:00Z), got ${quoted(text)}`, 'schedule.scheduledAt');
  if (!match) throw invalid();
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  const date = new Date(text.replace(' ', 'T'));
  // Date accepts impossible days (Feb 30) by rolling over; RFC 3339 does not.
  const probe = new Date(Date.UTC(year!, month! - 1, day!));
  if (
    Number.isNaN(date.getTime()) ||
    probe.getUTCMonth() !== month! - 1 ||
    probe.getUTCDate() !== day! ||
    hour! > 23 ||
    minute! > 59 ||
    second! > 60
  ) {
    throw invalid();
  }
  return date;
}
