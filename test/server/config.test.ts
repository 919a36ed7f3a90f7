/**
 * Every setting is validated at start-up with a message naming the variable (exit 2, nothing created), and the
 * README's configuration table lists exactly the variables the code reads. Bad values once started the service and
 * failed later: EEMT_DAYMET_MAX_POINTS=-3 made every eemt submission a 500, EEMT_DAYMET_URL=notaurl failed every
 * eemt job, EEMT_LOG_LEVEL=bogus printed a logger error with exit 1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError, configFromEnv } from '../../src/server/config.js';
import { REPO_ROOT, serviceEnv, startServiceProcess } from './serviceProcess.js';

const INVALID: [string, string][] = [
  ['EEMT_HOST', 'bad host!'],
  ['EEMT_PORT', 'abc'],
  ['EEMT_PORT', '70000'],
  ['EEMT_PORT', '0x1388'],
  ['EEMT_RUNTIME', 'podman'],
  ['CONTAINER_CPU_LIMIT', '0'],
  ['CONTAINER_CPU_LIMIT', '0x4'],
  ['CONTAINER_MEMORY_LIMIT', 'lots'],
  ['EEMT_MAX_CONCURRENT_JOBS', '0'],
  ['EEMT_MAX_UPLOAD_MB', '-1'],
  ['EEMT_REQUEST_TIMEOUT_S', '0'],
  ['EEMT_MIN_UPLOAD_KIB_PER_S', 'fast'],
  ['EEMT_AUTO_CLEANUP', 'maybe'],
  ['EEMT_CLEANUP_INTERVAL_HOURS', '0'],
  ['EEMT_SUCCESS_RETENTION_DAYS', '-1'],
  ['EEMT_FAILED_RETENTION_HOURS', '1.5'],
  ['EEMT_LOG_LEVEL', 'bogus'],
  ['EEMT_DAYMET_URL', 'notaurl'],
  ['EEMT_DAYMET_URL', 'ftp://daymet.ornl.gov'],
  ['EEMT_DAYMET_MAX_POINTS', '-3'],
  ['EEMT_DAYMET_MAX_POINTS', '1e999'],
  ['DOCKER_HOST', 'nonsense'],
  ['EEMT_REDIS_URL', 'http://127.0.0.1:6379'],
  ['EEMT_REDIS_URL', 'redis://127.0.0.1:6379/queue'],
  ['EEMT_SPLIT_MIN_CELLS', '0'],
  ['EEMT_SPLIT_PARTS', '257'],
];

test('every invalid setting is refused with a message that names its variable', () => {
  for (const [name, value] of INVALID) {
    assert.throws(
      () => configFromEnv({ [name]: value }),
      (error: unknown) => error instanceof ConfigError && new RegExp(`^${name}[ :]`).test(error.message) && error.message.includes(value),
      `${name}=${value}`,
    );
  }
});

test('valid settings are read, defaults apply to unset and empty ones', () => {
  const config = configFromEnv({
    EEMT_HOST: '0.0.0.0',
    EEMT_PORT: '8080',
    EEMT_LOG_LEVEL: 'debug',
    EEMT_DAYMET_URL: 'http://127.0.0.1:9/',
    EEMT_DAYMET_MAX_POINTS: '25',
    EEMT_REQUEST_TIMEOUT_S: '45',
    EEMT_MIN_UPLOAD_KIB_PER_S: '8',
    DOCKER_HOST: 'unix:///run/podman/podman.sock',
    EEMT_MAX_UPLOAD_MB: '',
  });
  assert.equal(config.host, '0.0.0.0');
  assert.equal(config.port, 8080);
  assert.equal(config.logLevel, 'debug');
  assert.equal(config.daymetUrl, 'http://127.0.0.1:9');
  assert.equal(config.daymetMaxPoints, 25);
  assert.equal(config.requestTimeoutSeconds, 45);
  assert.equal(config.minUploadBytesPerSecond, 8 * 1024);
  assert.equal(config.maxUploadBytes, 2048 * 1024 * 1024);
  const defaults = configFromEnv({});
  assert.equal(defaults.logLevel, 'info');
  assert.equal(defaults.daymetUrl, 'https://daymet.ornl.gov');
  assert.equal(defaults.daymetMaxPoints, 400);
  assert.equal(defaults.requestTimeoutSeconds, 30);
  assert.equal(defaults.minUploadBytesPerSecond, 16 * 1024);
});

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

test('the service exits 2 with one line naming the variable, and creates nothing', { timeout: 60_000 }, async () => {
  for (const [name, value] of [
    ['EEMT_DAYMET_MAX_POINTS', '-3'],
    ['EEMT_DAYMET_URL', 'notaurl'],
    ['EEMT_LOG_LEVEL', 'bogus'],
  ] as const) {
    const root = mkdtempSync(join(tmpdir(), 'eemt-config-'));
    roots.push(root);
    const service = startServiceProcess(serviceEnv(root, { [name]: value }));
    const exit = await service.exit;
    assert.equal(exit.code, 2, service.output());
    assert.match(service.output(), new RegExp(`^eemt-service: invalid configuration: ${name} [^\\n]*"${value}"[^\\n]*\\n$`));
    assert.deepEqual(readdirSync(root), [], 'no folder, database or lock was created');
  }
});

test("the README's configuration table lists exactly the variables the code reads", () => {
  const read = new Set<string>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) {
        const source = readFileSync(path, 'utf8');
        for (const m of source.matchAll(/['"]((?:EEMT|CONTAINER|DOCKER)_[A-Z0-9_]+)['"]|process\.env\.((?:EEMT|CONTAINER|DOCKER)_[A-Z0-9_]+)/g)) {
          read.add((m[1] ?? m[2])!);
        }
      }
    }
  };
  visit(join(REPO_ROOT, 'src'));
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Configuration'), readme.indexOf('\n### ', readme.indexOf('### Configuration') + 1));
  const documented = new Set([...section.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!));
  assert.ok(read.size >= 20, `found ${read.size} variables in src/`);
  assert.deepEqual([...read].filter((name) => !documented.has(name)).sort(), [], 'read by the code but not in the README');
  assert.deepEqual([...documented].filter((name) => !read.has(name)).sort(), [], 'in the README but read nowhere');
});
