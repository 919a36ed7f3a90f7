/**
 * Locating this package's own entry modules (worker threads, job child processes) so that the same code
 * runs from the TypeScript sources (under the `tsx` loader, as in tests and benchmarks) and from the
 * compiled `dist/` build.
 */
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Whether the module at `moduleUrl` is a TypeScript source, which runs only through the tsx loader. */
export function isTypeScriptSource(moduleUrl: URL): boolean {
  return moduleUrl.pathname.endsWith('.ts');
}

/** URL of the module `name` (no extension) next to the module `baseUrl`, with the base module's extension. */
export function siblingModuleUrl(baseUrl: string, name: string): URL {
  const extension = baseUrl.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${name}${extension}`, baseUrl);
}

/**
 * Node command-line arguments that run `moduleUrl` in a new process: the loader flags of this process
 * (so a `.ts` entry still runs under tsx) followed by the script path.
 */
export function nodeArgsFor(moduleUrl: URL): string[] {
  const loaderFlags: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if ((flag === '--import' || flag === '--require' || flag === '--loader') && i + 1 < argv.length) {
      loaderFlags.push(flag, argv[i + 1]!);
      i++;
    } else if (flag.startsWith('--import=') || flag.startsWith('--require=') || flag.startsWith('--loader=')) {
      loaderFlags.push(flag);
    }
  }
  if (isTypeScriptSource(moduleUrl) && !loaderFlags.some((f) => f.includes('tsx'))) {
    loaderFlags.push('--import', 'tsx');
  }
  return [...loaderFlags, fileURLToPath(moduleUrl)];
}

/**
 * A worker thread running the module at `moduleUrl`. A `.ts` module (sources run under tsx) is started
 * through a small bootstrap that registers the tsx loader inside the worker first, since loader flags are
 * not inherited by worker threads.
 */
export function startModuleWorker(moduleUrl: URL, options: WorkerOptions = {}): Worker {
  if (!isTypeScriptSource(moduleUrl)) return new Worker(moduleUrl, options);
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(moduleUrl.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
