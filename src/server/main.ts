/** Service entry point (`npm start`): configuration from the environment, then listen. */
import { ConfigError, configFromEnv } from './config.js';
import pages from './pages/index.js';
import { createService } from './service.js';

async function main(): Promise<void> {
  let config;
  try {
    config = configFromEnv();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`eemt-service: invalid configuration: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const service = await createService(config, { plugins: [pages], logger: { level: process.env.EEMT_LOG_LEVEL ?? 'info' } });
  const log = service.app.log;
  for (const note of service.runtimeNotes) log.info(note);
  log.info(
    `job runtime: ${service.runtime.name}${service.runtime.isolated ? '' : ' (no isolation)'}, ` +
      `${config.cpuLimit} CPUs and ${config.memoryBytes} bytes per job, at most ${config.maxConcurrentJobs} jobs at a time`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: stopping`);
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  await service.app.listen({ host: config.host, port: config.port });
}

main().catch((error: unknown) => {
  console.error(`eemt-service: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
