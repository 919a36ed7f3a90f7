/** The CLI's progress lines when not on a terminal: every 10 %, and between them at most every interval when something changed. */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { progressDisplay } from '../../src/cli/progress.js';

test('off a terminal: a line per 10 %, and a line per interval in between when the message changed', () => {
  const lines: string[] = [];
  let clock = 0;
  const display = progressDisplay({ isTTY: false, write: (text: string) => (lines.push(text), true) } as never, { intervalMs: 30_000, now: () => clock });
  const at = (seconds: number, fraction: number, message: string) => {
    clock = seconds * 1000;
    display.listener({ fraction, message });
  };
  at(0, 0, 'preparing terrain'); // first decile
  at(10, 0.0004, 'terrain horizons: tile 1/1521'); // too soon
  at(31, 0.0008, 'terrain horizons: tile 2/1521'); // 31 s after the last line, new message
  at(40, 0.0009, 'terrain horizons: tile 3/1521'); // 9 s after it
  at(75, 0.0012, 'terrain horizons: tile 3/1521'); // same message as the last call, but not as the last line
  at(76, 0.0013, 'terrain horizons: tile 3/1521');
  at(200, 0.1, 'day 172 of tile 153/1521'); // next decile: at once
  at(201, 0.1001, 'day 172 of tile 154/1521'); // 1 s later
  at(300, 1, 'sol products written');
  assert.deepEqual(lines, [
    '0% preparing terrain\n',
    '0.0% terrain horizons: tile 2/1521\n',
    '0.1% terrain horizons: tile 3/1521\n',
    '10% day 172 of tile 153/1521\n',
    '100% sol products written\n',
  ]);
  assert.ok(!barLibraryLoaded(), 'off a terminal the bar library is not loaded');
});

/** Whether cli-progress was loaded into this process (it is CommonJS: its files are in require's cache). */
function barLibraryLoaded(): boolean {
  return Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/cli-progress/'));
}

test('on a terminal: one bar, redrawn with the percentage and the message (the bar library is loaded then only)', () => {
  let screen = '';
  const terminal = {
    isTTY: true,
    columns: 100,
    write: (text: string) => ((screen += text), true),
    cursorTo: () => true,
    clearLine: () => true,
    moveCursor: () => true,
    clearScreenDown: () => true,
  };
  const display = progressDisplay(terminal as never);
  display.listener({ fraction: 0.5, message: 'terrain horizons: tile 3/25' });
  display.listener({ fraction: 1, message: 'sol products written' });
  display.stop();
  assert.match(screen, /100% \| sol products written/);
  assert.doesNotMatch(screen, /\n100% /, 'no plain progress lines on a terminal');
  assert.ok(barLibraryLoaded());
});
