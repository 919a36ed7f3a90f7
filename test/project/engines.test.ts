/**
 * The Node.js versions the project declares agree with its dependencies: every installed package (the lock file)
 * accepts the running Node and every major line the project claims, so `npm ci` prints no EBADENGINE warning.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import semver from 'semver';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean }>;
};

/** The lowest version of each major line the project's range admits (20.0.0, 22.0.0, …), up to Node 24. */
function claimedVersions(range: string): string[] {
  const versions: string[] = [];
  for (let major = 18; major <= 24; major++) {
    const lowest = semver.minVersion(`${range} ${major}.x`);
    if (lowest && semver.satisfies(lowest, range)) versions.push(lowest.version);
  }
  return versions;
}

test('the project supports Node 20 and says so', () => {
  assert.ok(semver.satisfies(process.version, pkg.engines.node), `running ${process.version}, engines ${pkg.engines.node}`);
  assert.equal(readFileSync(new URL('.nvmrc', root), 'utf8').trim(), '20');
  assert.ok(claimedVersions(pkg.engines.node).some((v) => semver.major(v) === 20));
});

test('every dependency accepts the running Node and every Node line the project claims', () => {
  const claimed = [process.version, ...claimedVersions(pkg.engines.node)];
  const conflicts: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (!path || !node) continue;
    for (const version of claimed) {
      if (!semver.satisfies(version, node)) conflicts.push(`${path}@${entry.version} needs node ${node}, not ${version}`);
    }
  }
  assert.deepEqual(conflicts, []);
});
