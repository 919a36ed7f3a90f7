/**
 * Entry of the DEM check process: `node demCheckChild.js <path> <limits as JSON>`. Judges the file
 * (`demRules.ts`) and prints the verdict as one JSON line on stdout. The service runs it with a memory limit
 * and a deadline (`demCheck.ts`), so a hostile file can at worst kill this process.
 */
import { judgeDem, type DemRuleLimits } from './demRules.js';

const [path, limitsJson] = process.argv.slice(2);
if (!path || !limitsJson) {
  process.stderr.write('usage: demCheckChild <path> <limits JSON>\n');
  process.exit(2);
}

judgeDem(path, JSON.parse(limitsJson) as DemRuleLimits).then(
  (verdict) => {
    process.stdout.write(JSON.stringify(verdict) + '\n', () => process.exit(0));
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
