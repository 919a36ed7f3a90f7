import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { parseCpuLimit, parseMemorySize, threadsFor } from '../../src/runtime/limits.js';
import { ProcessRuntime } from '../../src/runtime/process.js';
import { lineSplitter, parseMessage } from '../../src/runtime/protocol.js';
import { selectRuntime } from '../../src/runtime/select.js';
import { collect, makeLaunch, makeLayout, PROBE_CHILD, type Layout } from './helpers.js';

describe('process runtime', () => {
  let layout: Layout;
  before(() => (layout = makeLayout()));
  after(() => layout.cleanup());

  test('runs the child as a plain process and says it is not isolated', async () => {
    const rt = new ProcessRuntime({ limits: { cpus: 3, memoryBytes: 1024 ** 3 }, childEntry: PROBE_CHILD });
    assert.equal(rt.isolated, false);
    const launch = makeLaunch(layout, 'job-p');
    writeFileSync(join(launch.jobDir, 'probe.json'), JSON.stringify({ mode: 'probe', outside: [] }));
    const handlers = collect();
    const exit = await (await rt.start(launch, handlers)).done;
    assert.equal(exit.code, 0, handlers.logs.join('\n'));
    const result = JSON.parse(readFileSync(join(launch.jobDir, 'output', 'probe-result.json'), 'utf8'));
    assert.equal(result.threads, 3);
    assert.deepEqual(handlers.messages.map((m) => m.type), ['started', 'progress', 'done']);
    // a child from the TypeScript sources starts in this process's temp folder (tsx's compile cache), then takes the job's
    assert.equal(result.startedWithTmpdir, tmpdir());
    assert.equal(result.tmpdir, launch.tempDir);
    assert.ok(!result.env.includes('JOB_TEMP_DIR'));
  });

  test('a compiled child starts with the job\'s scratch folder as its temp folder', async () => {
    const entry = join(layout.root, 'tempChild.mjs');
    writeFileSync(
      entry,
      [
        "import { readFileSync, writeFileSync } from 'node:fs';",
        "import { join } from 'node:path';",
        'const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));',
        "process.stdout.write(JSON.stringify({ type: 'started', pid: process.pid }) + '\\n');",
        "writeFileSync(join(spec.outDir, 'temp.json'), JSON.stringify({ TMPDIR: process.env.TMPDIR, JOB_TEMP_DIR: process.env.JOB_TEMP_DIR ?? null }));",
        "process.stdout.write(JSON.stringify({ type: 'done', files: [], seconds: 0 }) + '\\n');",
      ].join('\n'),
    );
    const rt = new ProcessRuntime({ limits: { cpus: 1, memoryBytes: 1024 ** 3 }, childEntry: pathToFileURL(entry) });
    const launch = makeLaunch(layout, 'job-t');
    const handlers = collect();
    const exit = await (await rt.start(launch, handlers)).done;
    assert.equal(exit.code, 0, handlers.logs.join('\n'));
    assert.deepEqual(JSON.parse(readFileSync(join(launch.jobDir, 'output', 'temp.json'), 'utf8')), { TMPDIR: launch.tempDir, JOB_TEMP_DIR: null });
  });
});

describe('runtime selection and limits', () => {
  test('auto falls back to bubblewrap when no Docker engine answers', async () => {
    const { runtime, notes } = await selectRuntime({
      choice: 'auto',
      limits: { cpus: 1, memoryBytes: 1024 ** 3 },
      image: 'eemt:none',
      hiddenPaths: [],
      dockerSocketPath: '/nonexistent/docker.sock',
    });
    assert.equal(runtime.name, 'bubblewrap');
    assert.match(notes[0] ?? '', /docker skipped/);
  });

  test('explicit choices are honoured', async () => {
    for (const choice of ['docker', 'bubblewrap', 'process'] as const) {
      const { runtime } = await selectRuntime({ choice, limits: { cpus: 1, memoryBytes: 1024 ** 3 }, image: 'x', hiddenPaths: [] });
      assert.equal(runtime.name, choice);
    }
  });

  test('memory sizes and CPU limits parse like Docker', () => {
    assert.equal(parseMemorySize('8G'), 8 * 1024 ** 3);
    assert.equal(parseMemorySize('512m'), 512 * 1024 ** 2);
    assert.equal(parseMemorySize('1.5g'), 1.5 * 1024 ** 3);
    assert.equal(parseMemorySize('1073741824'), 1024 ** 3);
    assert.throws(() => parseMemorySize('lots'));
    assert.throws(() => parseMemorySize('1k'));
    assert.equal(parseCpuLimit('4'), 4);
    assert.throws(() => parseCpuLimit('0'));
    assert.equal(threadsFor(32, 4), 4);
    assert.equal(threadsFor(2, 4), 2);
    assert.equal(threadsFor(8, 0.5), 1);
  });

  test('protocol lines are parsed, other lines are not', () => {
    const lines: string[] = [];
    const split = lineSplitter((l) => lines.push(l));
    split.push('{"type":"progress","fraction":0.4');
    split.push('2,"message":"x"}\nplain\r\n{"type":"bogus"}\n{"type":"done","files":["a"],"seconds":2}');
    split.flush();
    assert.deepEqual(lines.map(parseMessage), [
      { type: 'progress', fraction: 0.42, message: 'x' },
      null,
      null,
      { type: 'done', files: ['a'], seconds: 2 },
    ]);
    assert.deepEqual(parseMessage('{"type":"progress","fraction":7,"message":"m"}'), { type: 'progress', fraction: 1, message: 'm' });
  });
});
