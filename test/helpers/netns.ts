/**
 * A network namespace joined to this machine by a veth pair, for tests that need a client on another network
 * stack reaching the service at a non-loopback address (browsers treat loopback addresses, 127.0.0.2 included,
 * as trustworthy and skip rules that bite real remote users). Needs root and iproute2 (see systemTools.ts).
 */
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

export interface TestNetwork {
  readonly namespace: string;
  /** Address of this machine's end of the pair (bind the service here). */
  readonly hostAddress: string;
  /** Address of the namespace's end. */
  readonly namespaceAddress: string;
  /** Removes the namespace and the pair. */
  close(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });

export function createTestNetwork(): TestNetwork {
  const used = ip('-o', '-4', 'addr', 'show');
  let prefix: string;
  do prefix = `10.${randomInt(200, 255)}.${randomInt(0, 256)}`;
  while (used.includes(` ${prefix}.`));
  const tag = `${process.pid % 10000}${randomInt(0, 100)}`;
  const namespace = `eemt-test-${tag}`;
  const hostEnd = `eh${tag}`;
  const namespaceEnd = `en${tag}`;
  const hostAddress = `${prefix}.1`;
  const namespaceAddress = `${prefix}.2`;
  const close = () => {
    try {
      ip('link', 'del', hostEnd);
    } catch {
      /* not created or already gone with the namespace */
    }
    try {
      ip('netns', 'del', namespace);
    } catch {
      /* not created */
    }
  };
  try {
    ip('netns', 'add', namespace);
    ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', namespaceEnd);
    ip('link', 'set', namespaceEnd, 'netns', namespace);
    ip('addr', 'add', `${hostAddress}/30`, 'dev', hostEnd);
    ip('link', 'set', hostEnd, 'up');
    ip('-n', namespace, 'addr', 'add', `${namespaceAddress}/30`, 'dev', namespaceEnd);
    ip('-n', namespace, 'link', 'set', namespaceEnd, 'up');
    ip('-n', namespace, 'link', 'set', 'lo', 'up');
  } catch (error) {
    close();
    throw error;
  }
  return { namespace, hostAddress, namespaceAddress, close };
}
