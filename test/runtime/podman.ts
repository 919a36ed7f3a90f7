/**
 * A real container engine for the Docker-runtime tests: Podman's Docker-compatible API service
 * (`podman system service`) on a unix socket, with its storage, run and temp folders in a temporary folder
 * of its own, and the job image built into it by `scripts/build-job-image.mjs` (no registry).
 *
 * Podman is started as docs/deployment.md describes for this kind of machine: runc, cgroupfs, vfs storage and a
 * `containers.conf` with `default_ulimits = []` (raising rlimits is forbidden here).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';

const BUILD_SCRIPT = fileURLToPath(new URL('../../scripts/build-job-image.mjs', import.meta.url));

function installed(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

/** Why the real-engine tests cannot run here (one line), or false. */
export const PODMAN_MISSING: string | false =
  installed('podman') && installed('runc') ? false : 'podman and runc are not installed (.ci/run installs them)';

export interface PodmanEngine {
  readonly socketPath: string;
  /** `unix://<socket>`: the DOCKER_HOST for this engine. */
  readonly dockerHost: string;
  readonly docker: Docker;
  /** The job image built for this run. */
  readonly image: string;
  /** Seconds spent starting the engine and building the image. */
  readonly startSeconds: { engine: number; image: number };
  /** Kills the engine's API service (containers keep running, as with a crash) and starts it again. */
  restart(): Promise<void>;
  /** Removes every container, stops the engine and deletes its folders. */
  stop(): Promise<void>;
}

async function waitForEngine(docker: Docker, service: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (service.exitCode !== null || service.signalCode !== null) throw new Error(`podman system service exited (${service.exitCode}): ${log()}`);
    try {
      await docker.ping();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`podman system service did not answer within 30 s: ${log()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export async function startPodman(): Promise<PodmanEngine> {
  const root = mkdtempSync(join(tmpdir(), 'eemt-podman-'));
  const conf = join(root, 'containers.conf');
  writeFileSync(conf, '[containers]\ndefault_ulimits = []\n');
  for (const dir of ['storage', 'run', 'tmp']) mkdirSync(join(root, dir));
  const socketPath = join(root, 'podman.sock');
  const dockerHost = `unix://${socketPath}`;
  const env = { ...process.env, CONTAINERS_CONF: conf };
  const podmanArgs = [
    '--root', join(root, 'storage'),
    '--runroot', join(root, 'run'),
    '--tmpdir', join(root, 'tmp'),
    '--runtime=runc',
    '--cgroup-manager=cgroupfs',
    '--storage-driver=vfs',
  ];

  let output = '';
  let service: ChildProcess;
  let stopped: Promise<void>;
  const launch = () => {
    // (conmon drops an `oom` marker into its working folder when a container hits its memory limit)
    service = spawn('podman', [...podmanArgs, 'system', 'service', '--time=0', dockerHost], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    service.stdout!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
    service.stderr!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
    stopped = new Promise<void>((resolve) => service.once('exit', () => resolve()));
  };
  const killService = async (signal: NodeJS.Signals) => {
    if (service.exitCode !== null || service.signalCode !== null) return;
    service.kill(signal);
    const timer = setTimeout(() => service.kill('SIGKILL'), 10_000);
    await stopped;
    clearTimeout(timer);
  };
  const killOnExit = () => service.kill('SIGKILL');
  process.once('exit', killOnExit);
  const docker = new Docker({ socketPath });

  const stop = async () => {
    for (const c of await docker.listContainers({ all: true }).catch(() => [])) {
      await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    }
    await killService('SIGTERM');
    process.removeListener('exit', killOnExit);
    rmSync(root, { recursive: true, force: true });
  };
  const restart = async () => {
    await killService('SIGKILL');
    launch();
    await waitForEngine(docker, service, () => output);
  };

  let t0 = Date.now();
  launch();
  try {
    await waitForEngine(docker, service!, () => output);
    const engineSeconds = (Date.now() - t0) / 1000;
    t0 = Date.now();
    const image = 'eemt:test';
    execFileSync(process.execPath, [BUILD_SCRIPT, '--tag', image], { env: { ...process.env, DOCKER_HOST: dockerHost }, stdio: ['ignore', 'ignore', 'pipe'] });
    return { socketPath, dockerHost, docker, image, startSeconds: { engine: engineSeconds, image: (Date.now() - t0) / 1000 }, restart, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
