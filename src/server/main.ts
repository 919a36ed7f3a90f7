/**
 * Service entry point (`npm start`, `node dist/server/main.js`): validate the configuration, lock the data, bind
 * the port, recover jobs, serve; stop cleanly on SIGTERM or SIGINT.
 *
 * Exit codes: 0 after a clean stop; 2 when the service refuses to start and changed nothing (invalid setting,
 * data locked by another service, a job runtime that cannot run any job with this machine's folders, address
 * in use); 1 for anything else.
 */
import { ServiceLock, ServiceLockedError } from '../jobs/store/serviceLock.js';
import { RuntimeSetupError } from '../runtime/types.js';
import { ConfigError, configFromEnv } from './config.js';

/** A start-up refusal: printed as one line, exit code 2. */
class StartupRefusal extends Error {}

async function main(): Promise<void> {
  let config;
  try {
    config = configFromEnv();
  } catch (error) {
    if (error instanceof ConfigError) throw new StartupRefusal(`invalid configuration: ${error.message}`);
    throw error;
  }

  // the data are locked before the service's modules load (0.7 s from dist/, 1–2 s from the sources), so that a
  // second service on them is refused at once
  let lock;
  try {
    lock = ServiceLock.forService(config);
  } catch (error) {
    if (error instanceof ServiceLockedError) {
      throw new StartupRefusal(
        `${error.message}. Stop that service, or give this one its own EEMT_DB_PATH and data folders. Nothing was changed.`,
      );
    }
    throw error;
  }

  let service;
  try {
    const [{ createService }, { default: pages }] = await Promise.all([import('./service.js'), import('./pages/index.js')]);
    service = await createService(config, { lock, plugins: [pages], logger: { level: config.logLevel } });
  } catch (error) {
    lock.release();
    if (error instanceof RuntimeSetupError) throw new StartupRefusal(`no job could run: ${error.message}`);
    throw error;
  }
  const log = service.app.log;

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: stopping`);
    service.close().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        log.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  try {
    await service.listen({ host: config.host, port: config.port });
  } catch (error) {
    await service.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES') {
      const reason = code === 'EADDRINUSE' ? 'the address is already in use' : code === 'EACCES' ? 'permission denied' : 'no such address on this machine';
      throw new StartupRefusal(
        `cannot listen on ${config.host}:${config.port}: ${reason} (settings EEMT_HOST, EEMT_PORT). No job was touched.`,
      );
    }
    throw error;
  }
  for (const note of service.runtimeNotes) log.info(note);
  log.info(
    `job runtime: ${service.runtime.name}${service.runtime.isolated ? '' : ' (no isolation)'}, ` +
      `${config.cpuLimit} CPUs and ${config.memoryBytes} bytes per job, at most ${config.maxConcurrentJobs} jobs at a time`,
  );
}

main().catch((error: unknown) => {
  console.error(`eemt-service: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(error instanceof StartupRefusal ? 2 : 1);
});
