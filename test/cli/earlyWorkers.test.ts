import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { solWorkersOf } from '../../src/cli/earlyWorkers.js';

const line = (...args: string[]) => ['node', 'eemt', ...args];
const cores = availableParallelism();

test('the sol command line says how many workers to start before the command loads', () => {
  // as the command reads it: --threads, default every CPU (within 1–32), never more than the CPUs
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '--out', 'out')), Math.min(cores, 32));
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '--threads', '1', '--out', 'out')), 1);
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '--out', 'out', '--threads=2')), Math.min(2, cores));
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '--threads', '32')), cores);
  // none for a line the command will refuse, for help, and for other commands
  for (const threads of ['0', '33', '1.5', 'many']) assert.equal(solWorkersOf(line('sol', 'dem.tif', '--threads', threads)), 0, threads);
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '--threads')), Math.min(cores, 32));
  assert.equal(solWorkersOf(line('sol', '--help')), 0);
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '-h')), 0);
  assert.equal(solWorkersOf(line('eemt', 'dem.tif', '--out', 'out')), 0);
  assert.equal(solWorkersOf(line('--version')), 0);
  assert.equal(solWorkersOf(line()), 0);
});
