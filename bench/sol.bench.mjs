// `npm run bench`: the full `sol` pipeline (step 15 min, Linke 3, albedo 0.2, all 742 GeoTIFFs written) on
//  - test/fixtures/mcn_10m.tif (228 × 211 cells, 10 m), and
//  - bench/data/mcn_2m5.tif, made here from mcn_10m with `gdalwarp -tr 2.5 2.5 -r cubic` (912 × 844 cells),
// each in its own process. Prints a JSON report. GRASS r.sun needs 242 s for the mcn_10m year on this kind of
// 2-core machine (step 0.25 h, nprocs=2).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const small = here('../test/fixtures/mcn_10m.tif');
const large = here('./data/mcn_2m5.tif');
if (!existsSync(large)) {
  mkdirSync(here('./data'), { recursive: true });
  execFileSync('gdalwarp', ['-q', '-tr', '2.5', '2.5', '-r', 'cubic', '-of', 'GTiff', small, large]);
}
const threads = String(Math.min(availableParallelism(), 32));
const cases = process.argv.includes('--small') ? [small] : [small, large];
const results = [];
for (const dem of cases) {
  const out = here(`./out/${dem.endsWith('mcn_10m.tif') ? 'mcn_10m' : 'mcn_2m5'}`);
  const line = execFileSync(process.execPath, [here('./sol-case.mjs'), dem, out, threads], { encoding: 'utf8' });
  results.push(JSON.parse(line.trim().split('\n').at(-1)));
}
const rsun = { mcn_10m_wall_seconds: 242, note: 'GRASS r.sun 8.2.1, 365 runs, step 0.25 h, nprocs=2, same kind of machine' };
console.log(JSON.stringify({ benchmark: 'sol pipeline (step 15 min)', results, reference: rsun }, null, 2));
