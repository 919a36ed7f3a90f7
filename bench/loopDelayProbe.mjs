// Preloaded into a service process by bench/jsonBodies.bench.mjs (`node --import <this file> main.js`): measures the
// event loop's delays with perf_hooks' monitorEventLoopDelay and answers the bench over the IPC channel.
// Messages: {probe: 'reset'} clears the histogram; {probe: 'read'} answers {max_ms, p99_ms, mean_ms}. A loop
// that is blocked answers once it is free again, so the answer to 'read' always includes the longest block.
import { monitorEventLoopDelay } from 'node:perf_hooks';

if (process.send) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const ms = (ns) => Number((ns / 1e6).toFixed(1));
  process.on('message', (message) => {
    if (message?.probe === 'reset') {
      histogram.reset();
      process.send({ probe: 'reset' });
    } else if (message?.probe === 'read') {
      process.send({ probe: 'read', max_ms: ms(histogram.max), p99_ms: ms(histogram.percentile(99)), mean_ms: ms(histogram.mean) });
    }
  });
}
