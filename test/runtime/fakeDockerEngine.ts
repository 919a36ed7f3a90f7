/**
 * A fake Docker Engine API on a unix socket, enough for the Docker runtime: ping, image inspect, container
 * create/attach/start/wait/stop/remove, list and info. A started container "runs" by streaming the frames the
 * test scripted and writing files into the host folder mounted at /job.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';

export interface FakeContainer {
  id: string;
  name: string;
  body: Record<string, any>;
  state: 'created' | 'running' | 'exited';
  removed: boolean;
  exitCode: number;
  attach?: ServerResponse;
  waiters: ((code: number) => void)[];
}

export interface FakeScript {
  /** Lines the container prints on stdout and stderr. */
  stdout: string[];
  stderr: string[];
  /** Files (relative to the /job mount) the container writes. */
  files: Record<string, string>;
  exitCode: number;
  /** Keep running until stopped. */
  hang?: boolean;
}

function frame(stream: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

export class FakeDockerEngine {
  readonly containers = new Map<string, FakeContainer>();
  readonly requests: string[] = [];
  images = new Set<string>();
  script: FakeScript = { stdout: [], stderr: [], files: {}, exitCode: 0 };
  private server: Server | null = null;

  constructor(readonly socketPath: string) {}

  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => this.handle(req, res, raw));
    });
    await new Promise<void>((resolve) => this.server!.listen(this.socketPath, resolve));
  }

  async close(): Promise<void> {
    for (const c of this.containers.values()) c.attach?.end();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private finish(c: FakeContainer, code: number): void {
    if (c.state === 'exited') return;
    c.state = 'exited';
    c.exitCode = code;
    c.attach?.end();
    for (const w of c.waiters.splice(0)) w(code);
  }

  private run(c: FakeContainer): void {
    c.state = 'running';
    const binds: string[] = c.body.HostConfig?.Binds ?? [];
    const jobBind = binds.find((b) => b.split(':')[1] === '/job');
    const hostJob = jobBind?.split(':')[0];
    setTimeout(() => {
      if (hostJob) {
        for (const [rel, content] of Object.entries(this.script.files)) {
          mkdirSync(dirname(join(hostJob, rel)), { recursive: true });
          writeFileSync(join(hostJob, rel), content);
        }
      }
      for (const line of this.script.stdout) c.attach?.write(frame(1, line + '\n'));
      for (const line of this.script.stderr) c.attach?.write(frame(2, line + '\n'));
      if (!this.script.hang) setTimeout(() => this.finish(c, this.script.exitCode), 20);
    }, 20);
  }

  private handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const url = new URL(req.url ?? '/', 'http://docker');
    const path = url.pathname.replace(/^\/v\d+\.\d+/, '');
    this.requests.push(`${req.method} ${path}`);
    let m: RegExpExecArray | null;
    if (path === '/_ping') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('OK');
    } else if ((m = /^\/images\/(.+)\/json$/.exec(path))) {
      const name = decodeURIComponent(m[1]!);
      if (this.images.has(name)) this.json(res, 200, { Id: 'sha256:fake', RepoTags: [name] });
      else this.json(res, 404, { message: `No such image: ${name}` });
    } else if (path === '/info') {
      this.json(res, 200, { NCPU: 16, MemTotal: 64 * 1024 ** 3, ContainersRunning: [...this.containers.values()].filter((c) => c.state === 'running').length });
    } else if (path === '/containers/json') {
      this.json(
        res,
        200,
        [...this.containers.values()]
          .filter((c) => !c.removed)
          .map((c) => ({ Id: c.id, Names: [`/${c.name}`], State: c.state, Labels: c.body.Labels })),
      );
    } else if (path === '/containers/create' && req.method === 'POST') {
      const id = `c${this.containers.size + 1}`;
      const c: FakeContainer = { id, name: url.searchParams.get('name') ?? id, body: JSON.parse(raw), state: 'created', removed: false, exitCode: -1, waiters: [] };
      this.containers.set(id, c);
      this.json(res, 201, { Id: id, Warnings: [] });
    } else if ((m = /^\/containers\/([^/]+)\/(attach|start|wait|stop|kill)$/.exec(path))) {
      const c = this.containers.get(m[1]!);
      if (!c) return this.json(res, 404, { message: 'No such container' });
      switch (m[2]) {
        case 'attach':
          res.writeHead(200, { 'Content-Type': 'application/vnd.docker.raw-stream' });
          res.flushHeaders();
          c.attach = res;
          return;
        case 'start':
          this.run(c);
          res.writeHead(204);
          return void res.end();
        case 'wait':
          if (c.state === 'exited') return this.json(res, 200, { StatusCode: c.exitCode });
          c.waiters.push((code) => this.json(res, 200, { StatusCode: code }));
          return;
        default:
          this.finish(c, 137);
          res.writeHead(204);
          return void res.end();
      }
    } else if ((m = /^\/containers\/([^/]+)$/.exec(path)) && req.method === 'DELETE') {
      const c = this.containers.get(m[1]!);
      if (c) c.removed = true;
      res.writeHead(204);
      res.end();
    } else {
      this.json(res, 404, { message: `fake engine: ${req.method} ${path} not implemented` });
    }
  }
}
