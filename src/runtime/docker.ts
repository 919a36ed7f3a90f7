/**
 * The Docker runtime: each job runs the job child in a container of `CONTAINER_IMAGE`, through the Docker
 * Engine API on its socket (Docker, or Podman's Docker-compatible service). The image is built by
 * `scripts/build-job-image.mjs` (no registry needed) or by this repo's `Dockerfile`.
 *
 * The container gets `--cpus` and `--memory` (no extra swap) from the limits, a PID limit, no capabilities,
 * no new privileges, a read-only root, and no network for workflows that do not download data. It sees only
 * its own output folder (`/job/output`), its job description (`/job/job.json`, read-only), the DEM's folder
 * (read-only at `/input`), scratch space (`/scratch`) and, for eemt, the climate cache (`/cache`). It runs as
 * the service's user, or as `nobody` (65534) when the service runs as root; its writable folders are then
 * handed to that user. The engine mounts the host paths at these fixed paths, so the folders above them may be
 * closed to that user (a service in root's home or a `mktemp -d` folder).
 */
import type Docker from 'dockerode';
import { existsSync } from 'node:fs';
import { lchown, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { heapMegabytesFor, isHeapLimitMessage, threadsFor } from './limits.js';
import { lineSplitter, parseMessage } from './protocol.js';
import { forwardedWorkflowSettings } from './workflowSettings.js';
import { writeChildSpec } from './spawnChild.js';
import {
  launchContainerName,
  RuntimeUnavailableError,
  specFileName,
  type JobExit,
  type JobHandlers,
  type JobLaunch,
  type JobRuntime,
  type RunningJob,
  type RuntimeLimits,
  type RuntimeStatus,
} from './types.js';

export interface DockerRuntimeOptions {
  readonly limits: RuntimeLimits;
  readonly image: string;
  /** Engine socket (default: DOCKER_HOST or /var/run/docker.sock, as the Docker CLI). */
  readonly socketPath?: string;
  /** Path of the job child inside the image. */
  readonly childPath?: string;
}

/** Where the Docker CLI and dockerode look for the engine when DOCKER_HOST is unset. */
const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

/** Label every job container carries (value: the job id). */
export const JOB_LABEL = 'eemt.job_id';

/** How long the engine may take to report the exit code once a container's output has ended [ms]. */
const EXIT_REPORT_MS = 5000;

/** `promise`, or a rejection when it has not settled within `ms`. */
function settleWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no exit status within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Who a job container runs as when the service runs as root: `nobody`, who owns nothing on the host. */
const UNPRIVILEGED_USER = { uid: 65534, gid: 65534 } as const;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The uid and gid of a job container: the service's own, or `nobody` for a service running as root. */
export function jobUser(): { uid: number; gid: number } {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  return uid === 0 ? UNPRIVILEGED_USER : { uid, gid };
}

function isLoopbackUrl(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/**
 * The container network of a job: none for workflows that do not download data; otherwise the engine's bridge,
 * or the host's network when the Daymet server is on this machine's loopback (a local mirror), which a bridged
 * container cannot reach — as much network as the bubblewrap runtime gives such jobs.
 */
function networkModeFor(launch: JobLaunch): 'none' | 'bridge' | 'host' {
  if (!launch.network) return 'none';
  return isLoopbackUrl(forwardedWorkflowSettings().EEMT_DAYMET_URL) ? 'host' : 'bridge';
}

/** `lchown -R`: hands a folder tree to the job's user without following links planted in it. */
async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  await lchown(path, uid, gid);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (entry.isDirectory()) await chownTree(join(path, entry.name), uid, gid);
    else await lchown(join(path, entry.name), uid, gid);
  }
}

export class DockerRuntime implements JobRuntime {
  readonly name = 'docker' as const;
  readonly isolated = true;
  readonly limits: RuntimeLimits;
  readonly image: string;
  private readonly socketPath: string | undefined;
  private client: Promise<Docker> | null = null;
  private readonly childPath: string;

  constructor(options: DockerRuntimeOptions) {
    this.limits = options.limits;
    this.image = options.image;
    this.socketPath = options.socketPath;
    this.childPath = options.childPath ?? '/app/dist/runtime/jobChild.js';
  }

  /** The Engine API client; dockerode (≈ 0.2 s to load) is loaded on first use. */
  private engine(): Promise<Docker> {
    this.client ??= import('dockerode').then(({ default: Docker }) => new Docker(this.socketPath ? { socketPath: this.socketPath } : undefined));
    return this.client;
  }

  /** Null when the engine answers and the image exists. */
  async check(): Promise<string | null> {
    // No engine socket where the Docker CLI would look: not reachable, without loading the client.
    const socket = this.socketPath ?? (process.env.DOCKER_HOST ? null : DEFAULT_DOCKER_SOCKET);
    if (socket !== null && !existsSync(socket)) return `Docker engine not reachable: no engine socket at ${socket}`;
    const docker = await this.engine();
    try {
      await docker.ping();
    } catch (error) {
      return `Docker engine not reachable: ${errorText(error)}`;
    }
    try {
      await docker.getImage(this.image).inspect();
    } catch {
      return `Docker image ${this.image} not found (build it with: node scripts/build-job-image.mjs --tag ${this.image})`;
    }
    return null;
  }

  /** The Engine API body that creates the container of `launch`. */
  createOptions(launch: JobLaunch): Docker.ContainerCreateOptions {
    const binds = [
      `${join(launch.jobDir, 'output')}:/job/output:rw`,
      `${join(launch.jobDir, specFileName(launch))}:/job/job.json:ro`,
      `${dirname(launch.demPath)}:/input:ro`,
      `${launch.tempDir}:/scratch:rw`,
    ];
    if (launch.cacheDir) binds.push(`${launch.cacheDir}:/cache:rw`);
    const threads = threadsFor(launch.params.num_threads, this.limits.cpus);
    const env = ['TMPDIR=/scratch', 'HOME=/scratch', 'NODE_ENV=production', `UV_THREADPOOL_SIZE=${threads}`, `EEMT_JOB_ID=${launch.jobId}`];
    if (launch.cacheDir) env.push('EEMT_CACHE_DIR=/cache');
    for (const [name, value] of Object.entries(forwardedWorkflowSettings())) env.push(`${name}=${value}`);
    const user = jobUser();
    return {
      name: launchContainerName(launch),
      Image: this.image,
      Cmd: ['node', `--max-old-space-size=${heapMegabytesFor(this.limits.memoryBytes)}`, this.childPath, '/job/job.json'],
      Env: env,
      WorkingDir: '/job',
      Labels: { [JOB_LABEL]: launch.jobId },
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      User: `${user.uid}:${user.gid}`,
      HostConfig: {
        Binds: binds,
        NanoCpus: Math.round(this.limits.cpus * 1e9),
        Memory: this.limits.memoryBytes,
        MemorySwap: this.limits.memoryBytes,
        PidsLimit: 1024,
        NetworkMode: networkModeFor(launch),
        ReadonlyRootfs: true,
        SecurityOpt: ['no-new-privileges'],
        CapDrop: ['ALL'],
        AutoRemove: false,
      },
    };
  }

  /** Writes the job description and the folders the container mounts; hands the writable ones to its user. */
  private async prepare(launch: JobLaunch): Promise<void> {
    const outputDir = join(launch.jobDir, 'output');
    await writeChildSpec(launch, this.limits, {
      demPath: `/input/${basename(launch.demPath)}`,
      climatePath: launch.climatePath && `/input/${basename(launch.climatePath)}`,
      outDir: '/job/output',
    });
    if (process.getuid?.() === 0) {
      const { uid, gid } = jobUser();
      await lchown(outputDir, uid, gid);
      await lchown(launch.tempDir, uid, gid);
      if (launch.cacheDir) await chownTree(launch.cacheDir, uid, gid);
    }
  }

  async start(launch: JobLaunch, handlers: JobHandlers): Promise<RunningJob> {
    const reason = await this.check();
    if (reason) throw new RuntimeUnavailableError('docker', reason);
    await this.prepare(launch);

    let heapExhausted = false;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out = lineSplitter((line) => {
      const message = parseMessage(line);
      if (message) handlers.onMessage(message);
      else if (line.length > 0) handlers.onLog(line);
    });
    const err = lineSplitter((line) => {
      if (isHeapLimitMessage(line)) heapExhausted = true;
      handlers.onLog(line);
    });
    stdout.on('data', (chunk: Buffer) => out.push(chunk));
    stderr.on('data', (chunk: Buffer) => err.push(chunk));

    const docker = await this.engine();
    const container = await docker.createContainer(this.createOptions(launch));
    /** Removes the container; after losing the engine, tries again while it comes back (about 10 s). */
    const remove = async (attempts = 1): Promise<void> => {
      for (let attempt = 1; ; attempt++) {
        try {
          await container.remove({ force: true });
          return;
        } catch (error) {
          if ((error as { statusCode?: number }).statusCode === 404) return;
          if (attempt >= attempts) {
            handlers.onLog(`could not remove container ${container.id}: ${errorText(error)}`);
            return;
          }
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
    };
    let streamEnded: Promise<void>;
    try {
      const stream = (await container.attach({ stream: true, stdout: true, stderr: true })) as NodeJS.ReadableStream;
      streamEnded = new Promise<void>((resolveEnd) => {
        stream.on('end', resolveEnd);
        stream.on('close', resolveEnd);
        stream.on('error', () => resolveEnd());
      });
      docker.modem.demuxStream(stream, stdout, stderr);
      await container.start();
    } catch (error) {
      await remove(); // a container that never ran is of no use
      throw error;
    }

    // The attach stream ends when the container exits, or when the connection to the engine breaks. (The
    // Engine API's wait alone cannot tell: dockerode never settles a wait whose connection is cut.)
    const done = (async (): Promise<JobExit> => {
      await streamEnded;
      await new Promise((r) => setImmediate(r)); // the last chunks on their way through the demuxer
      out.flush();
      err.flush();
      let exit: JobExit;
      try {
        const result = await settleWithin(container.wait() as Promise<{ StatusCode?: number }>, EXIT_REPORT_MS);
        const info = await container.inspect().catch(() => null);
        exit = { code: result.StatusCode ?? null, signal: null, outOfMemory: Boolean(info?.State.OOMKilled) || heapExhausted };
      } catch (error) {
        // the engine went away while the job ran: the container may still be running, unattended
        const lost = `Lost the job container: the connection to the container engine broke (${errorText(error)})`;
        handlers.onLog(lost);
        exit = { code: null, signal: null, lost };
      }
      await remove(exit.lost ? 6 : 1);
      return exit;
    })();

    return {
      done,
      kill: () => {
        container.stop({ t: 3 }).catch(() => container.kill().catch(() => undefined));
      },
    };
  }

  /** Removes the containers of `jobIds` (left running by a service process that died) — killing them. */
  async discard(jobIds: readonly string[]): Promise<void> {
    const docker = await this.engine();
    for (const jobId of jobIds) {
      const containers = await docker.listContainers({ all: true, filters: { label: [`${JOB_LABEL}=${jobId}`] } }).catch(() => []);
      for (const { Id } of containers) await docker.getContainer(Id).remove({ force: true }).catch(() => undefined);
    }
  }

  async status(): Promise<RuntimeStatus> {
    const reason = await this.check();
    if (reason) {
      return { available: false, error: reason, totalContainers: 0, runningJobs: [], cpus: 0, memoryBytes: 0, containersRunning: 0 };
    }
    const docker = await this.engine();
    const [info, containers] = await Promise.all([
      docker.info() as Promise<{ NCPU?: number; MemTotal?: number; ContainersRunning?: number }>,
      docker.listContainers({ all: true, filters: { label: [JOB_LABEL] } }),
    ]);
    return {
      available: true,
      totalContainers: containers.length,
      runningJobs: containers
        .filter((c) => c.State === 'running')
        .map((c) => (c.Names[0] ?? c.Id).replace(/^\//, '')),
      cpus: info.NCPU ?? 0,
      memoryBytes: info.MemTotal ?? 0,
      containersRunning: info.ContainersRunning ?? 0,
    };
  }
}
