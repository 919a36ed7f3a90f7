/**
 * The Docker runtime: each job runs the job child in a container of `CONTAINER_IMAGE` (built by this repo's
 * `Dockerfile`), through the Docker Engine API on its socket.
 *
 * The container gets `--cpus` and `--memory` (no extra swap) from the limits, a PID limit, no network for
 * workflows that do not download data, the job folder mounted at `/job`, the DEM's folder read-only at
 * `/input`, scratch space at `/scratch`, and runs as the service's user so its outputs belong to the service.
 */
import Docker from 'dockerode';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { heapMegabytesFor, threadsFor } from './limits.js';
import { lineSplitter, parseMessage, type ChildJobSpec } from './protocol.js';
import { forwardedWorkflowSettings } from './workflowSettings.js';
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

/** Label every job container carries (value: the job id). */
export const JOB_LABEL = 'eemt.job_id';

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class DockerRuntime implements JobRuntime {
  readonly name = 'docker' as const;
  readonly isolated = true;
  readonly limits: RuntimeLimits;
  readonly image: string;
  private readonly docker: Docker;
  private readonly childPath: string;

  constructor(options: DockerRuntimeOptions) {
    this.limits = options.limits;
    this.image = options.image;
    this.docker = new Docker(options.socketPath ? { socketPath: options.socketPath } : undefined);
    this.childPath = options.childPath ?? '/app/dist/runtime/jobChild.js';
  }

  /** Null when the engine answers and the image exists. */
  async check(): Promise<string | null> {
    try {
      await this.docker.ping();
    } catch (error) {
      return `Docker engine not reachable: ${errorText(error)}`;
    }
    try {
      await this.docker.getImage(this.image).inspect();
    } catch {
      return `Docker image ${this.image} not found (build it with: docker build -t ${this.image} .)`;
    }
    return null;
  }

  /** The Engine API body that creates the container of `launch`. */
  createOptions(launch: JobLaunch): Docker.ContainerCreateOptions {
    const binds = [`${launch.jobDir}:/job:rw`, `${dirname(launch.demPath)}:/input:ro`, `${launch.tempDir}:/scratch:rw`];
    if (launch.cacheDir) binds.push(`${launch.cacheDir}:/cache:rw`);
    const threads = threadsFor(launch.params.num_threads, this.limits.cpus);
    const env = ['TMPDIR=/scratch', 'HOME=/job', 'NODE_ENV=production', `UV_THREADPOOL_SIZE=${threads}`, `EEMT_JOB_ID=${launch.jobId}`];
    if (launch.cacheDir) env.push('EEMT_CACHE_DIR=/cache');
    for (const [name, value] of Object.entries(forwardedWorkflowSettings())) env.push(`${name}=${value}`);
    const uid = process.getuid?.();
    const gid = process.getgid?.();
    return {
      name: launchContainerName(launch),
      Image: this.image,
      Cmd: ['node', `--max-old-space-size=${heapMegabytesFor(this.limits.memoryBytes)}`, this.childPath, `/job/${specFileName(launch)}`],
      Env: env,
      WorkingDir: '/job',
      Labels: { [JOB_LABEL]: launch.jobId },
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      ...(uid !== undefined && gid !== undefined ? { User: `${uid}:${gid}` } : {}),
      HostConfig: {
        Binds: binds,
        NanoCpus: Math.round(this.limits.cpus * 1e9),
        Memory: this.limits.memoryBytes,
        MemorySwap: this.limits.memoryBytes,
        PidsLimit: 1024,
        NetworkMode: launch.network ? 'bridge' : 'none',
        ReadonlyRootfs: true,
        SecurityOpt: ['no-new-privileges'],
        CapDrop: ['ALL'],
        AutoRemove: false,
      },
    };
  }

  async start(launch: JobLaunch, handlers: JobHandlers): Promise<RunningJob> {
    const reason = await this.check();
    if (reason) throw new RuntimeUnavailableError('docker', reason);

    await mkdir(join(launch.jobDir, 'output'), { recursive: true });
    await mkdir(launch.tempDir, { recursive: true });
    const spec: ChildJobSpec = {
      jobId: launch.jobId,
      workflowType: launch.workflowType,
      demPath: `/input/${basename(launch.demPath)}`,
      outDir: '/job/output',
      params: { ...launch.params, num_threads: threadsFor(launch.params.num_threads, this.limits.cpus) },
      ...(this.limits.maxDemCells !== undefined ? { maxDemCells: this.limits.maxDemCells } : {}),
      ...(launch.part ? { days: launch.part.days } : {}),
    };
    await writeFile(join(launch.jobDir, specFileName(launch)), JSON.stringify(spec, null, 2) + '\n');

    const container = await this.docker.createContainer(this.createOptions(launch));
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out = lineSplitter((line) => {
      const message = parseMessage(line);
      if (message) handlers.onMessage(message);
      else if (line.length > 0) handlers.onLog(line);
    });
    const err = lineSplitter((line) => handlers.onLog(line));
    stdout.on('data', (chunk: Buffer) => out.push(chunk));
    stderr.on('data', (chunk: Buffer) => err.push(chunk));

    const stream = (await container.attach({ stream: true, stdout: true, stderr: true })) as NodeJS.ReadableStream;
    const streamEnded = new Promise<void>((resolveEnd) => {
      stream.on('end', resolveEnd);
      stream.on('close', resolveEnd);
      stream.on('error', () => resolveEnd());
    });
    this.docker.modem.demuxStream(stream, stdout, stderr);
    await container.start();

    const done = (async (): Promise<JobExit> => {
      let exit: JobExit;
      try {
        const result = (await container.wait()) as { StatusCode?: number };
        exit = { code: result.StatusCode ?? null, signal: null };
      } catch (error) {
        handlers.onLog(`lost the container: ${errorText(error)}`);
        exit = { code: null, signal: 'SIGKILL' };
      }
      await Promise.race([streamEnded, new Promise((r) => setTimeout(r, 1000))]);
      out.flush();
      err.flush();
      try {
        await container.remove({ force: true });
      } catch {
        /* already removed */
      }
      return exit;
    })();

    return {
      done,
      kill: () => {
        container.stop({ t: 3 }).catch(() => container.kill().catch(() => undefined));
      },
    };
  }

  async status(): Promise<RuntimeStatus> {
    const reason = await this.check();
    if (reason) {
      return { available: false, error: reason, totalContainers: 0, runningJobs: [], cpus: 0, memoryBytes: 0, containersRunning: 0 };
    }
    const [info, containers] = await Promise.all([
      this.docker.info() as Promise<{ NCPU?: number; MemTotal?: number; ContainersRunning?: number }>,
      this.docker.listContainers({ all: true, filters: { label: [JOB_LABEL] } }),
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
