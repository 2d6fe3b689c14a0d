// The pure parts of background runs: schedule parsing, the output cap and tail, artifacts text.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  appendOutput,
  charLength,
  completionMessage,
  headChars,
  MAX_OUTPUT_LOG_CHARS,
  OUTPUT_TAIL_CHARS,
  type OutputState,
  resultDocument,
  tailChars,
  TRUNCATION_LINE,
} from '../../src/domain/tasks/background-output.js';
import { scheduleDescription } from '../../src/domain/tasks/background.js';
import type { ActivityUpdate } from '../../src/domain/tasks/task-transitions.js';
import { TaskSink } from '../../src/jobs/task-sink.js';
import { InvalidScheduleError } from '../../src/model/errors.js';
import { parseSchedule } from '../../src/domain/tasks/schedules.js';

const refusal = (input: unknown, options = {}) => {
  try {
    parseSchedule(input, options);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidScheduleError);
    return error as InvalidScheduleError;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
};

describe('parseSchedule', () => {
  const now = new Date('2026-04-16T10:07:30Z');

  it('takes a 5-field cron expression in a timezone and computes the next trigger', () => {
    expect(parseSchedule({ cronExpression: ' 0  9 * * 1-5 ', timezone: 'europe/paris' }, { now })).toEqual({
      type: 'CRON',
      cronExpression: '0 9 * * 1-5',
      scheduledAt: null,
      timezone: 'Europe/Paris',
      nextTriggerAt: new Date('2026-04-17T07:00:00Z'),
    });
    expect(parseSchedule({ cronExpression: '*/10 * * * *' }, { now }).nextTriggerAt).toEqual(new Date('2026-04-16T10:10:00Z'));
  });

  it('takes an RFC 3339 instant (any offset) for a one-shot, UTC by default', () => {
    expect(parseSchedule({ scheduledAt: '2026-04-16T15:30:00+02:00' }, { now })).toEqual({
      type: 'ONCE',
      cronExpression: null,
      scheduledAt: new Date('2026-04-16T13:30:00Z'),
      timezone: 'UTC',
      nextTriggerAt: new Date('2026-04-16T13:30:00Z'),
    });
    expect(parseSchedule({ scheduledAt: '2026-04-16T15:30:00.250Z', cronExpression: null }, { now }).scheduledAt).toEqual(new Date('2026-04-16T15:30:00.250Z'));
  });

  it('refuses a one-shot time in the past, naming schedule.scheduledAt', () => {
    const past = refusal({ scheduledAt: '2026-04-16T10:07:19Z' }, { now });
    expect(past.field).toBe('schedule.scheduledAt');
    expect(past.message).toContain('in the past');
    expect(refusal({ scheduledAt: '2020-01-01T00:00:00Z' }).field).toBe('schedule.scheduledAt');
    // Within the grace (clock skew, a slow request) it is taken, and fires at once.
    expect(parseSchedule({ scheduledAt: '2026-04-16T10:07:30Z' }, { now }).scheduledAt).toEqual(now);
    expect(parseSchedule({ scheduledAt: '2026-04-16T10:07:21Z' }, { now }).nextTriggerAt).toEqual(new Date('2026-04-16T10:07:21Z'));
  });

  it('refuses every malformed schedule, naming the field', () => {
    expect(refusal(null).field).toBe('schedule');
    expect(refusal('*/5 * * * *').field).toBe('schedule');
    expect(refusal({}).message).toContain('exactly one of cronExpression');
    expect(refusal({ cronExpression: '  ', scheduledAt: '' }).field).toBe('schedule');
    expect(refusal({ cronExpression: '* * * * *', scheduledAt: '2026-04-16T15:30:00Z' }).message).toContain('provide exactly one');
    expect(refusal({ cron: '* * * * *' }).message).toContain('unknown field');
    expect(refusal({ scheduledAt: 'tomorrow at noon' }).field).toBe('schedule.scheduledAt');
    expect(refusal({ scheduledAt: '2026-04-16' }).field).toBe('schedule.scheduledAt');
    expect(refusal({ scheduledAt: '2026-04-16T15:30:00' }).field).toBe('schedule.scheduledAt');
    expect(refusal({ scheduledAt: '2026-13-01T00:00:00Z' }).field).toBe('schedule.scheduledAt');
    expect(refusal({ scheduledAt: 1_700_000_000 }).field).toBe('schedule.scheduledAt');
    expect(refusal({ cronExpression: '61 * * * *' }).field).toBe('schedule.cronExpression');
    expect(refusal({ cronExpression: 'every minute' }).field).toBe('schedule.cronExpression');
    // Jenkins' hashed `H` is random at each parse (the next trigger shown and the firings would differ).
    for (const cronExpression of ['H * * * *', '0 H * * *', 'H/15 * * * *', 'H(0-29) * * * *', '0 0 * * h']) {
      const hashed = refusal({ cronExpression }, { now });
      expect(hashed.field).toBe('schedule.cronExpression');
      expect(hashed.message).toContain('`H`');
    }
    expect(parseSchedule({ cronExpression: '0 9 * * MON-THU' }, { now }).nextTriggerAt).toEqual(new Date('2026-04-20T09:00:00Z'));
    expect(parseSchedule({ cronExpression: '0 9 * * thu' }, { now }).nextTriggerAt).toEqual(new Date('2026-04-23T09:00:00Z'));
    expect(refusal({ cronExpression: '* * * *' }).message).toContain('5 fields');
    expect(refusal({ cronExpression: '*/2 * * * * *' }).message).toContain('got 6');
    expect(refusal({ cronExpression: '* * * * *', timezone: 'Nowhere/Special' }).field).toBe('schedule.timezone');
    expect(refusal({ cronExpression: '* * * * *', timezone: 7 }).field).toBe('schedule.timezone');
    // Huge input is named, not repeated whole.
    for (const schedule of [{ cronExpression: `${'1,'.repeat(5000)}1 * * * *` }, { cronExpression: 'x'.repeat(10_000) }, { scheduledAt: 'y'.repeat(10_000) }, { cronExpression: '* * * * *', timezone: 'z'.repeat(10_000) }]) {
      expect(refusal(schedule).message.length).toBeLessThan(400);
    }
  });

  it('accepts seconds only when configured to (tests)', () => {
    expect(parseSchedule({ cronExpression: '*/2 * * * * *' }, { allowSeconds: true, now }).nextTriggerAt).toEqual(new Date('2026-04-16T10:07:32Z'));
    expect(refusal({ cronExpression: '* * * *' }, { allowSeconds: true }).field).toBe('schedule.cronExpression');
  });
});

describe('output log and tail', () => {
  const fresh: OutputState = { tail: '', logChars: 0, truncated: false };

  it('prefixes each chunk with its stream in the log and the tail', () => {
    const first = appendOutput(fresh, 'stdout', 'hello\n');
    const second = appendOutput(first.state, 'stderr', 'oops\n');
    expect(first.logText + second.logText).toBe('[stdout] hello\n[stderr] oops\n');
    expect(second.state).toEqual({ tail: '[stdout] hello\n[stderr] oops\n', logChars: 29, truncated: false });
    expect(second.keptText).toBe('oops\n');
  });

  it('keeps the log at the cap and writes the truncation line once; the tail keeps moving', () => {
    let state: OutputState = fresh;
    let log = '';
    let marks = 0;
    for (let index = 0; index < 30; index++) {
      const applied = appendOutput(state, 'stdout', `${String(index).padStart(2, '0')}${'x'.repeat(9_990)}\n`);
      state = applied.state;
      log += applied.logText;
      if (applied.truncatedNow) marks++;
    }
    expect(marks).toBe(1);
    expect(state.truncated).toBe(true);
    expect(state.logChars).toBe(MAX_OUTPUT_LOG_CHARS);
    expect(log).toHaveLength(MAX_OUTPUT_LOG_CHARS + TRUNCATION_LINE.length + 2);
    expect(log.endsWith(`\n${TRUNCATION_LINE}\n`)).toBe(true);
    expect(state.tail).toHaveLength(OUTPUT_TAIL_CHARS);
    expect(state.tail.endsWith('x\n')).toBe(true);
    const after = appendOutput(state, 'stdout', 'more');
    expect(after.logText).toBe('');
    expect(after.state.tail.endsWith('[stdout] more')).toBe(true);
  });

  it('marks the truncation in the stream whose output reached the cap', async () => {
    const updates: ActivityUpdate[] = [];
    const sink = new TaskSink(async (update) => Boolean(updates.push(update)), () => undefined, pino({ level: 'silent' }), 1);
    sink.output('stdout', 'a line\n');
    sink.output('stderr', 'e'.repeat(MAX_OUTPUT_LOG_CHARS));
    await sink.flush();
    const output = updates.map((update) => update.output!);
    expect(output.map((entry) => entry.truncatedIn).filter(Boolean)).toEqual(['stderr']);
    expect(output.flatMap((entry) => entry.chunks.map((chunk) => chunk.stream))).toEqual(['stdout', 'stderr']);
  });

  it('counts characters as code points and never splits a surrogate pair', () => {
    expect(charLength('a😀b')).toBe(3);
    expect(headChars('😀😀😀', 2)).toBe('😀😀');
    expect(tailChars('😀😀😀', 1)).toBe('😀');
    const nearlyFull: OutputState = { tail: '', logChars: MAX_OUTPUT_LOG_CHARS - 11, truncated: false };
    const applied = appendOutput(nearlyFull, 'stdout', '😀😀😀😀');
    // 9 characters of prefix, then two of the four emoji fit.
    expect(applied.logText).toBe(`[stdout] 😀😀\n${TRUNCATION_LINE}\n`);
    expect(applied.keptText).toBe('😀😀');
  });
});

describe('artifacts', () => {
  it('writes result.json for each ending', () => {
    expect(JSON.parse(resultDocument('SUCCEEDED', { result: { ok: 1 } }))).toEqual({ ok: 1 });
    expect(JSON.parse(resultDocument('FAILED', { error: 'boom' }))).toEqual({ status: 'failed', error: 'boom' });
    expect(JSON.parse(resultDocument('CANCELED', {}))).toEqual({ status: 'canceled' });
  });

  it('writes them as serde_json writes a plain Value: keys sorted, floats as floats, the tool-value tag key not escaped', () => {
    const stored = { z: { $toolrun_value: 'float', value: 8 }, $lash_tool_value: 'user', a: [1, 0.5] };
    expect(resultDocument('SUCCEEDED', { result: stored })).toBe('{\n  "$lash_tool_value": "user",\n  "a": [\n    1,\n    0.5\n  ],\n  "z": 8.0\n}');
  });

  it('describes a scheduled monitor with the seed’s text, its payload as serde_json pretty-prints a plain Value', () => {
    const description = scheduleDescription({ tool: 'report_progress', title: 'Watch PR 1319', signalOnCompletion: true, args: { summary: 'Background complete', $lash_tool_value: 'x', list: [] } });
    expect(description).toBe(
      'Monitor: Watch PR 1319\n\nThis scheduled monitor fired. Start the background run now.\n\nspawn_background payload:\n' +
        '{\n  "args": {\n    "$lash_tool_value": "x",\n    "list": [],\n    "summary": "Background complete"\n  },\n  "signal_on_completion": true,\n  "title": "Watch PR 1319",\n  "tool": "report_progress"\n}',
    );
  });

  it('words the session message of a finished run', () => {
    const run = { runId: 'bg_1', title: 'T', tool: 'sleep', summary: 'S', resultPath: '/r', logPath: '/l' };
    expect(completionMessage('SUCCEEDED', run)).toBe('Background run completed.\n- run_id: bg_1\n- title: T\n- tool: sleep\n- summary: S\n- result_path: /r\n- log_path: /l');
    expect(completionMessage('FAILED', run).split('\n')[0]).toBe('Background run failed.');
    expect(completionMessage('CANCELED', run).split('\n')[0]).toBe('Background run canceled.');
  });
});
