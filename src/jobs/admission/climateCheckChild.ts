/**
 * Entry of the climate-file check process: `node climateCheckChild.js <zip> <dem> <limits as JSON>`. Judges
 * the ZIP (`climateRules.ts`) and prints the verdict as one JSON line on stdout. The service runs it with a
 * memory limit and a deadline (`demCheck.ts`), so a hostile archive can at worst kill this process.
 */
import { judgeClimate, type ClimateRuleLimits } from './climateRules.js';

const [zipPath, demPath, limitsJson] = process.argv.slice(2);
if (!zipPath || !demPath || !limitsJson) {
  process.stderr.write('usage: climateCheckChild <zip> <dem> <limits JSON>\n');
  process.exit(2);
}

judgeClimate(zipPath, demPath, JSON.parse(limitsJson) as ClimateRuleLimits).then(
  (verdict) => {
    process.stdout.write(JSON.stringify(verdict) + '\n', () => process.exit(0));
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
