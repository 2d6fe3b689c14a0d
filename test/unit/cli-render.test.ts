// What the CLI draws on a terminal: a live block is redrawn in place by moving up as many rows as
// it drew, so every line it draws must take exactly one row.
import { describe, expect, it } from 'vitest';
import { fit, LiveBlock, type Screen } from '../../src/cli/render.js';

function terminal(columns: number | undefined, rows?: number): Screen & { output: string } {
  const screen = { tty: true, columns: () => columns, rows: () => rows, output: '', write: (text: string) => void (screen.output += text) };
  return screen;
}

describe('LiveBlock on a terminal', () => {
  it('cuts each line to the terminal width, so that a redraw goes up exactly the rows it drew', () => {
    const screen = terminal(40);
    const block = new LiveBlock(screen);
    const long = `w-retry  failing_tool  RETRYING  1/3  attempt 1 failed: EXECUTION/intentional_failure: Tool execution failed; attempt 2 in 1500 ms`;
    block.draw(['CALL  TOOL  STATUS', long]);
    block.draw(['CALL  TOOL  STATUS', long, 'short']);
    const frames = screen.output.split('\x1b[0J');
    expect(frames[1]).toBe(`CALL  TOOL  STATUS\n${long.slice(0, 38)}…\n\x1b[2F`);
    expect(frames[2]).toBe(`CALL  TOOL  STATUS\n${long.slice(0, 38)}…\nshort\n`);
    for (const line of screen.output.replace(/\x1b\[\d*[FJ]/g, '').split('\n')) expect([...line].length).toBeLessThan(40);
  });

  it('keeps a block taller than the terminal within its height: the first line, how many are left out, the last ones', () => {
    const screen = terminal(80, 6);
    const block = new LiveBlock(screen);
    const lines = ['CALL  STATUS', ...Array.from({ length: 9 }, (_, index) => `call-${index}  RUNNING`)];
    block.draw(lines);
    block.draw(lines);
    const frames = screen.output.split('\x1b[0J');
    const frame = ['CALL  STATUS', '… 6 more above (the terminal is 6 rows high)', 'call-6  RUNNING', 'call-7  RUNNING', 'call-8  RUNNING'].join('\n');
    expect(frames[1]).toBe(`${frame}\n\x1b[5F`);
    expect(frames[2]).toBe(`${frame}\n`);
  });

  it('leaves lines as they are when the width is unknown', () => {
    const screen = terminal(undefined);
    new LiveBlock(screen).draw(['x'.repeat(500)]);
    expect(screen.output).toBe(`\x1b[0J${'x'.repeat(500)}\n`);
  });
});

describe('fit', () => {
  it('counts code points and keeps the last column free', () => {
    expect(fit('abc', 4)).toBe('abc');
    expect(fit('abcd', 4)).toBe('ab…');
    expect(fit('\u{1F600}'.repeat(10), 5)).toBe(`${'\u{1F600}'.repeat(3)}…`);
  });
});
