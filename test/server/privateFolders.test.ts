// Needs: bwrap, gdal
/**
 * A service run as root from folders the job user cannot enter (mode 0700, as `mktemp -d` makes them and as
 * root's home is): the real service process, with its code (this clone, bound into a 0700 folder in a mount
 * namespace of the test's own) and its data folders there, runs a `sol` job in the bubblewrap sandbox as
 * uid 65534. Where that cannot work — root may not make mount namespaces — the service refuses to start
 * (exit code 2) naming the folder and the fix; a runtime that cannot reach its code reports itself
 * unavailable in the system status.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BubblewrapRuntime, codeRootFolders } from '../../src/runtime/bubblewrap.js';
import { foldersAbove, jobUserCanSearch } from '../../src/runtime/folderView.js';
import { FIXTURES, getJson, startTestService, submit, waitForStatus, type TestService } from './helpers.js';
import { REPO_ROOT, serviceEnv, startServiceProcess, type ServiceProcess } from './serviceProcess.js';
import { zipEntries } from './zip.js';

const notRoot = process.getuid!() !== 0 && 'the service drops to the job user only when it runs as root';

/** A fresh 0700 folder (as `mktemp -d` makes it), removed after the file's tests. */
const privateRoots: string[] = [];
function privateFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'eemt-private-'));
  assert.equal(statSync(folder).mode & 0o777, 0o700);
  privateRoots.push(folder);
  return folder;
}
after(() => {
  for (const folder of privateRoots) rmSync(folder, { recursive: true, force: true });
});

/** A 30 × 24 window of mcn_10m: a sol job on it takes a few seconds. */
function smallDem(folder: string): { name: string; bytes: Buffer } {
  const path = join(folder, 'small.tif');
  execFileSync('gdal_translate', ['-q', '-srcwin', '60', '80', '30', '24', fileURLToPath(new URL('mcn_10m.tif', FIXTURES)), path]);
  return { name: 'small.tif', bytes: readFileSync(path) };
}

describe('a root service whose code and data lie in a 0700 folder', { skip: notRoot }, () => {
  let folder: string;
  let service: ServiceProcess;
  let base: string;

  before(async () => {
    folder = privateFolder();
    const clone = join(folder, 'eemt-service');
    mkdirSync(clone);
    // The clone at a private path: this checkout bound there, in a mount namespace that ends with the service.
    const start = 'mount --bind "$0" "$1" && cd "$1" && exec "$2" --import tsx src/server/main.ts';
    service = startServiceProcess(serviceEnv(join(folder, 'data'), { EEMT_RUNTIME: 'bubblewrap', CONTAINER_CPU_LIMIT: '2' }), {
      file: 'unshare',
      args: ['--mount', '--propagation', 'private', '--', 'sh', '-c', start, REPO_ROOT, clone, process.execPath],
      cwd: folder,
    });
    base = await service.address(120_000);
  });
  after(async () => {
    if (service && !service.exited()) {
      process.kill(service.pid, 'SIGTERM');
      await service.exit;
    }
  });

  test('a sol job completes, run by the job user, and its results download', { timeout: 180_000 }, async () => {
    const status = (await getJson(`${base}/api/system/status`)).body;
    assert.equal(status.runtime, 'bubblewrap');
    assert.equal(status.container_available, true, JSON.stringify(status));
    const res = await submit(base, { workflow_type: 'sol', step: '60', num_threads: '2' }, smallDem(folder));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.job_id as string;
    const job = await waitForStatus(base, id, ['completed', 'failed'], 150_000);
    const log = (await getJson(`${base}/api/jobs/${id}/logs?tail=20`)).body.lines.join('\n');
    assert.equal(job.status, 'completed', `${job.error_message}\n${log}`);
    assert.equal(job.runtime, 'bubblewrap');
    // written by uid 65534 on the host: the job did not run as root
    const daily = join(folder, 'data', 'results', id, 'output', 'global', 'daily', 'total_sun_day_172.tif');
    assert.equal(statSync(daily).uid, 65534);
    const zip = Buffer.from(await (await fetch(`${base}/api/jobs/${id}/results`)).arrayBuffer());
    assert.equal(zipEntries(zip).filter((e) => /^global\/daily\/total_sun_day_\d+\.tif$/.test(e.name)).length, 365);
  });
});

describe('root that may not make mount namespaces (no CAP_SYS_ADMIN, as in a container)', { skip: notRoot }, () => {
  /** The service from this checkout, as root without CAP_SYS_ADMIN, with its data in `root`. */
  function startWithoutSysAdmin(root: string): ServiceProcess {
    return startServiceProcess(serviceEnv(root, { EEMT_RUNTIME: 'bubblewrap' }), {
      file: 'setpriv',
      args: ['--bounding-set=-sys_admin', '--', process.execPath, '--import', 'tsx', 'src/server/main.ts'],
      cwd: REPO_ROOT,
    });
  }

  test('with its data in a 0700 folder, the service refuses to start: exit code 2, the folder and the fix', async () => {
    const folder = privateFolder();
    const service = startWithoutSysAdmin(folder);
    const exit = await service.exit;
    assert.equal(exit.code, 2, service.output());
    const match = /eemt-service: no job could run: bubblewrap runtime: the job user \(uid 65534\) cannot enter (\S+), .*; make it searchable \(chmod o\+x (\S+)\)/.exec(service.output());
    assert.ok(match, service.output());
    assert.equal(match[1], match[2]);
    // the folder named is closed to the job user: the data folder, or one above this checkout when it lies in one
    const named = match[1]!;
    assert.equal(await jobUserCanSearch(named), false);
    assert.ok(named === folder || codeRootFolders().some((root) => root.startsWith(`${named}/`)), named);
  });

  test('a worker of the distributed queue refuses to start the same way, before it contacts Redis', async () => {
    const folder = privateFolder();
    const env = serviceEnv(folder, { EEMT_RUNTIME: 'bubblewrap', EEMT_REDIS_URL: 'redis://127.0.0.1:9/0' });
    for (const name of ['EEMT_UPLOAD_DIR', 'EEMT_RESULTS_DIR', 'EEMT_TEMP_DIR', 'EEMT_CACHE_DIR']) mkdirSync(env[name]!, { recursive: true });
    const worker = startServiceProcess(env, {
      file: 'setpriv',
      args: ['--bounding-set=-sys_admin', '--', process.execPath, '--import', 'tsx', 'src/worker/main.ts'],
      cwd: REPO_ROOT,
    });
    const exit = await worker.exit;
    assert.equal(exit.code, 2, worker.output());
    assert.match(worker.output(), /eemt worker: no part could run: bubblewrap runtime: the job user \(uid 65534\) cannot enter \S+, .*; make it searchable \(chmod o\+x \S+\)/);
  });

  test('with its data in folders open to the job user, it starts: no view is needed', async (t) => {
    // the code's folders and every folder above them (a checkout in a 0700 folder is refused like the data)
    const onTheWay = codeRootFolders().flatMap((root) => [...foldersAbove(root), root]);
    const searchable = await Promise.all(onTheWay.map((folder) => jobUserCanSearch(folder)));
    if (searchable.includes(false)) return t.skip('this checkout lies in a folder closed to the job user');
    const folder = privateFolder();
    chmodSync(folder, 0o755);
    const service = startWithoutSysAdmin(folder);
    try {
      const base = await service.address(60_000);
      assert.equal((await getJson(`${base}/api/system/status`)).body.container_available, true);
    } finally {
      // (a service that has already ended is not signalled: the error above says why it ended)
      if (!service.exited()) process.kill(service.pid, 'SIGTERM');
      await service.exit;
    }
  });
});

describe('a runtime whose code the job user cannot read', { skip: notRoot }, () => {
  let svc: TestService;
  let code: string;
  before(async () => {
    code = privateFolder();
    const entry = join(code, 'child.js');
    execFileSync('sh', ['-c', `echo 'process.exit(0)' > "${entry}" && chmod 600 "${entry}" && chmod 755 "${code}"`]);
    svc = await startTestService({
      runtime: (c) =>
        new BubblewrapRuntime({
          limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes },
          hiddenPaths: [c.uploadDir, c.resultsDir, c.tempDir, c.dbPath],
          childEntry: new URL(`file://${entry}`),
          codeRoots: [...codeRootFolders(), code],
        }),
    });
  });
  after(() => svc?.stop());

  test('the system status says the runtime is unusable, and why', async () => {
    const status = (await getJson(`${svc.base}/api/system/status`)).body;
    assert.equal(status.container_available, false);
    assert.equal(status.error, `bubblewrap runtime not reachable: the job user (uid 65534) cannot read ${join(code, 'child.js')} (EACCES); make the code readable by others (chmod -R o+rX ${code})`);
  });
});
