// Needs: bwrap
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BubblewrapRuntime, codeRootFolders } from '../../src/runtime/bubblewrap.js';
import { collect, makeLaunch, makeLayout, PROBE_CHILD, type Layout } from './helpers.js';

const GiB = 1024 ** 3;

/**
 * A small ES-module package in a folder of its own, both mode 0700 (a clone in root's home, or made in a
 * `mktemp -d` folder): a job child that imports a sibling module and reports what it sees (and reads the
 * paths listed in `reads.json` in its job folder).
 */
function privatePackage(): { dir: string; entry: URL; cleanup(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'eemt-code-'));
  const dir = join(folder, 'pkg');
  mkdirSync(join(dir, 'lib'), { recursive: true });
  chmodSync(dir, 0o700);
  writeFileSync(join(folder, 'notes.txt'), 'not code');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'lib', 'send.js'), "export const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');\n");
  writeFileSync(
    join(dir, 'child.js'),
    `import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { send } from './lib/send.js';
const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
send({ type: 'started', pid: process.pid });
const module = fileURLToPath(import.meta.url);
let folder;
try { folder = readdirSync(dirname(dirname(module))).sort(); } catch (e) { folder = e.code; }
const reads = {};
for (const path of existsSync('reads.json') ? JSON.parse(readFileSync('reads.json', 'utf8')) : []) {
  try { reads[path] = statSync(path).isDirectory() ? readdirSync(path).sort() : readFileSync(path, 'utf8'); } catch (e) { reads[path] = e.code; }
}
const result = { module, helper: typeof send === 'function' ? 'loaded' : 'missing', demBytes: readFileSync(spec.demPath).length, uid: process.getuid(), gid: process.getgid(), folder, reads };
writeFileSync(join(spec.outDir, 'code.json'), JSON.stringify(result));
send({ type: 'done', files: ['code.json'], seconds: 0 });
`,
  );
  return { dir, entry: pathToFileURL(join(dir, 'child.js')), cleanup: () => rmSync(folder, { recursive: true, force: true }) };
}

describe('bubblewrap runtime (real sandbox)', () => {
  let layout: Layout;
  let server: Server;
  let port = 0;
  let accepted = 0;

  before(async () => {
    layout = makeLayout();
    server = createServer((socket) => {
      accepted++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(() => {
    server.close();
    layout.cleanup();
  });

  const runtime = () =>
    new BubblewrapRuntime({
      limits: { cpus: 2, memoryBytes: 1 * GiB },
      hiddenPaths: [] as string[],
      childEntry: PROBE_CHILD,
    });

  test('is available here', async () => {
    assert.equal(await runtime().check(), null);
  });

  for (const [where, mode] of [
    ['a 0700 folder, closed to the job user', 0o700],
    ['a folder open to the job user', 0o755],
  ] as const) {
    test(`a job writes only its own folder and cannot reach the network (data in ${where})`, async () => {
      const data = mode === 0o700 ? layout : makeLayout(mode);
      try {
        await probeSandbox(data);
      } finally {
        if (data !== layout) data.cleanup();
      }
    });
  }

  async function probeSandbox(data: Layout): Promise<void> {
    const rt = new BubblewrapRuntime({
      limits: { cpus: 2, memoryBytes: 1 * GiB },
      hiddenPaths: [data.uploads, data.results, data.temp],
      childEntry: PROBE_CHILD,
    });
    const other = makeLaunch(data, 'other-job');
    writeFileSync(join(other.jobDir, 'secret.txt'), 'other job data');
    // the service's own data beside the data folders, readable by anyone who reaches it
    const serviceFile = join(data.root, 'jobs.db');
    writeFileSync(serviceFile, 'service data', { mode: 0o644 });
    const launch = makeLaunch(data, 'job-a');
    const repoFile = fileURLToPath(new URL('../../escape-test.txt', import.meta.url));
    const outside = [
      join(other.jobDir, 'escaped.txt'),
      join(data.root, 'escaped.txt'),
      repoFile,
      '/etc/eemt-escaped',
      launch.demPath,
    ];
    const reads = [join(other.jobDir, 'secret.txt'), serviceFile, data.root];
    writeFileSync(join(launch.jobDir, 'probe.json'), JSON.stringify({ mode: 'probe', port, outside, reads }));
    const handlers = collect();
    const job = await rt.start(launch, handlers);
    const exit = await job.done;
    assert.equal(exit.code, 0, handlers.logs.join('\n'));

    const result = JSON.parse(readFileSync(join(launch.jobDir, 'output', 'probe-result.json'), 'utf8'));
    for (const path of outside) assert.notEqual(result.writes[path], 'written', `${path} must not be writable`);
    assert.ok(!existsSync(join(other.jobDir, 'escaped.txt')));
    assert.ok(!existsSync(join(data.root, 'escaped.txt')));
    assert.ok(!existsSync(repoFile));
    assert.equal(result.demReadable, true, 'the DEM is readable');
    assert.equal(result.reads[reads[0]!], 'ENOENT', "another job's files are hidden");
    if (process.getuid!() === 0 && (statSync(data.root).mode & 0o001) === 0) {
      // the folder closed to the job user holds, for it, only the paths of its job
      assert.equal(result.reads[serviceFile], 'ENOENT', "the service's other data in the closed folder is hidden");
      assert.deepEqual(result.reads[data.root], ['results', 'temp', 'uploads']);
    }
    assert.notEqual(result.network, 'connected');
    assert.equal(accepted, 0, 'no connection reached the host');
    assert.ok(result.pid < 10, `own PID namespace (pid ${result.pid})`);
    assert.equal(result.threads, 2, 'threads capped at the CPU limit');
    assert.ok(!result.env.includes('EEMT_DB_PATH'));
    assert.deepEqual([result.uid, result.gid], [65534, 65534], 'an unprivileged uid inside the sandbox');
    assert.equal(result.shadow, 'EACCES', 'no root file permissions, even when the service runs as root');
    assert.equal(result.logWrite, 'EROFS', 'the job folder is read-only: job.log belongs to the service');
    assert.equal(result.logLink, 'EROFS', 'no links planted next to job.log');
    assert.equal(result.specWrite, 'EROFS');
    if (process.getuid!() === 0) {
      const owner = statSync(join(launch.jobDir, 'output', 'probe-result.json')).uid;
      assert.equal(owner, 65534, 'a root service starts the job as uid 65534 on the host too');
    }

    assert.deepEqual(handlers.messages.map((m) => m.type), ['started', 'progress', 'done']);
    assert.ok(handlers.logs.includes('probe child running'));
    assert.ok(handlers.logs.includes('a line of ordinary output'));
  }

  test('code in a folder closed to the job user, and closed itself, runs: its modules load at their own paths', async () => {
    const code = privatePackage();
    try {
      const rt = new BubblewrapRuntime({
        limits: { cpus: 1, memoryBytes: 1 * GiB },
        hiddenPaths: [layout.uploads, layout.results, layout.temp],
        childEntry: code.entry,
        codeRoots: [...codeRootFolders(), code.dir],
      });
      assert.equal(await rt.check(), null);
      const launch = makeLaunch(layout, 'job-code');
      const handlers = collect();
      const exit = await (await rt.start(launch, handlers)).done;
      assert.equal(exit.code, 0, handlers.logs.join('\n'));
      const result = JSON.parse(readFileSync(join(launch.jobDir, 'output', 'code.json'), 'utf8'));
      assert.equal(result.module, fileURLToPath(code.entry), 'the module is found at its real path');
      assert.equal(result.helper, 'loaded', 'a sibling module loads');
      assert.equal(result.demBytes, statSync(launch.demPath).size);
      assert.deepEqual([result.uid, result.gid], [65534, 65534]);
      if (process.getuid!() === 0) {
        assert.deepEqual(result.folder, ['pkg'], 'the closed folder shows the code only');
        assert.equal(statSync(join(launch.jobDir, 'output', 'code.json')).uid, 65534);
      }
    } finally {
      code.cleanup();
    }
  });

  test('a service started in its checkout under /tmp keeps its data there (./uploads, ./results, …): the job sees only its own', async () => {
    const code = privatePackage();
    try {
      const data: Layout = { root: code.dir, uploads: join(code.dir, 'uploads'), results: join(code.dir, 'results'), temp: join(code.dir, 'temp'), cleanup: () => undefined };
      for (const dir of [data.uploads, data.results, data.temp]) mkdirSync(dir);
      const database = join(code.dir, 'jobs.db');
      writeFileSync(database, 'service data', { mode: 0o644 });
      const rt = new BubblewrapRuntime({
        limits: { cpus: 1, memoryBytes: 1 * GiB },
        hiddenPaths: [data.uploads, data.results, data.temp, database],
        childEntry: code.entry,
        codeRoots: [...codeRootFolders(), code.dir],
      });
      const other = makeLaunch(data, 'other-job');
      writeFileSync(join(other.jobDir, 'secret.txt'), 'other job data');
      const launch = makeLaunch(data, 'job-in-clone');
      const reads = [database, data.results, join(other.jobDir, 'secret.txt'), join(code.dir, 'package.json')];
      writeFileSync(join(launch.jobDir, 'reads.json'), JSON.stringify(reads));
      const handlers = collect();
      const exit = await (await rt.start(launch, handlers)).done;
      assert.equal(exit.code, 0, handlers.logs.join('\n'));
      const result = JSON.parse(readFileSync(join(launch.jobDir, 'output', 'code.json'), 'utf8'));
      assert.ok(['EACCES', ''].includes(result.reads[database]), `the job database is hidden (/dev/null over it): ${result.reads[database]}`);
      assert.deepEqual(result.reads[data.results], ['job-in-clone'], 'of the results, only its own folder');
      assert.equal(result.reads[reads[2]!], 'ENOENT');
      assert.equal(result.reads[reads[3]!], '{ "type": "module" }\n', 'the code is there');
      assert.deepEqual([result.uid, result.gid], [65534, 65534]);
    } finally {
      code.cleanup();
    }
  });

  test('code the job user cannot read: the runtime says which file and how to fix it, and starts no job', { skip: process.getuid!() !== 0 && 'only a root service drops to the job user' }, async () => {
    const code = privatePackage();
    try {
      chmodSync(fileURLToPath(code.entry), 0o600);
      const rt = new BubblewrapRuntime({
        limits: { cpus: 1, memoryBytes: 1 * GiB },
        hiddenPaths: [layout.uploads, layout.results, layout.temp],
        childEntry: code.entry,
        codeRoots: [...codeRootFolders(), code.dir],
      });
      const expected = `the job user (uid 65534) cannot read ${fileURLToPath(code.entry)} (EACCES); make the code readable by others (chmod -R o+rX ${code.dir})`;
      assert.equal(await rt.setupProblem(), expected);
      assert.equal(await rt.check(), expected);
      const status = await rt.status();
      assert.equal(status.available, false);
      assert.equal(status.error, expected);
      await assert.rejects(rt.start(makeLaunch(layout, 'job-unreadable'), collect()), { name: 'RuntimeUnavailableError', message: expected });
    } finally {
      code.cleanup();
    }
  });

  test('the memory limit is enforced', async () => {
    const rt = new BubblewrapRuntime({ limits: { cpus: 1, memoryBytes: 512 * 1024 ** 2 }, childEntry: PROBE_CHILD });
    const launch = makeLaunch(layout, 'job-mem');
    writeFileSync(join(launch.jobDir, 'probe.json'), JSON.stringify({ mode: 'alloc' }));
    const handlers = collect();
    const job = await rt.start(launch, handlers);
    const exit = await job.done;
    const resultPath = join(launch.jobDir, 'output', 'probe-result.json');
    assert.equal(handlers.messages[0]?.type, 'started', handlers.logs.join('\n'));
    if (exit.code === 0) {
      const result = JSON.parse(readFileSync(resultPath, 'utf8'));
      assert.ok(result.allocatedMb < 512, `allocation stopped under the limit: ${result.alloc}`);
    } else {
      assert.ok(!existsSync(resultPath), 'the child died before finishing');
    }
  });

  test('kill stops a running job promptly', async () => {
    const rt = runtime();
    const launch = makeLaunch(layout, 'job-kill');
    writeFileSync(join(launch.jobDir, 'probe.json'), JSON.stringify({ mode: 'sleep' }));
    const handlers = collect();
    const job = await rt.start(launch, handlers);
    const deadline = Date.now() + 15_000;
    while (!handlers.messages.some((m) => m.type === 'progress')) {
      assert.ok(Date.now() < deadline, `the child did not start: ${handlers.logs.join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const status = await rt.status();
    assert.deepEqual(status.runningJobs, ['eemt-job-job-kill']);
    const t0 = Date.now();
    job.kill();
    const exit = await job.done;
    assert.ok(Date.now() - t0 < 5000);
    assert.notEqual(exit.code, 0);
    assert.deepEqual((await rt.status()).runningJobs, []);
  });
});
