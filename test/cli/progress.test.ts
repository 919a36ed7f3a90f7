/** The CLI's progress lines when not on a terminal: every 10 %, and between them at most every interval when something changed. */
import assert from 'node:assert/strict';
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
});
