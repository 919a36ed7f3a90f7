// Needs: gdal
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountTmpfs, unmount } from '../helpers/tmpfs.js';

const root = new URL('../../', import.meta.url).pathname;
const eemt = join(root, 'bin/eemt.js');
let work = '';
let dem = '';

before(() => {
  work = mkdtempSync(join(tmpdir(), 'cli-'));
  dem = join(work, 'small.tif');
  execFileSync('gdal_translate', ['-q', '-srcwin', '100', '100', '20', '16', join(root, 'test/fixtures/mcn_10m.tif'), dem]);
});
after(() => rmSync(work, { recursive: true, force: true }));

function run(args: string[]) {
  return spawnSync(process.execPath, [eemt, ...args], { encoding: 'utf8', cwd: work });
}

const UNIT_BYTES: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** The output estimate a run said on stderr, checked against what its outputs take on disk (du, whole blocks). */
function assertEstimateCovers(stderr: string, out: string): void {
  const said = /^eemt: sol outputs of about ([\d.]+) (B|KB|MB|GB) expected in (.+) \(([\d.]+ (?:B|KB|MB|GB|TB)) free\)$/m.exec(stderr);
  assert.ok(said, `no estimate line in:\n${stderr}`);
  assert.equal(said[3], out);
  const estimate = Number(said[1]) * UNIT_BYTES[said[2]!]!;
  const onDisk = Number(execFileSync('du', ['-s', '--block-size=1', out], { encoding: 'utf8' }).split('\t')[0]);
  assert.ok(estimate >= 0.99 * onDisk && estimate < 1.5 * onDisk, `estimated ${said[1]} ${said[2]}, ${onDisk} bytes on disk`);
}

test('eemt sol writes the products and ends with a one-line summary', () => {
  const out = join(work, 'out');
  const result = run(['sol', dem, '--out', out, '--step', '30', '--linke', '2.5', '--albedo', '0.3', '--threads', '2']);
  assert.equal(result.status, 0, result.stderr);
  assert.match(
    result.stdout.trim(),
    /^sol: 742 GeoTIFFs in .* — 320 cells × 365 days in [\d.]+ s \([\d.]+ M cell-days\/s\); horizons [\d.]+ s, kernel [\d.]+ s, encoding [\d.]+ s \(thread-seconds\), writing [\d.]+ s$/,
  );
  assert.equal(readdirSync(join(out, 'global/daily')).length, 365);
  assert.equal(readdirSync(join(out, 'insol/daily')).length, 365);
  assert.equal(readdirSync(join(out, 'global/monthly')).length, 12);
  // not a terminal: progress arrives as plain lines on stderr, ending at 100 %
  assert.match(result.stderr, /100% /);
  const info = JSON.parse(execFileSync('gdalinfo', ['-json', join(out, 'global/daily/total_sun_day_172.tif')], { encoding: 'utf8' }));
  assert.equal(info.metadata['']['STEP_MINUTES'], '30');
  assert.equal(info.metadata['']['LINKE_TURBIDITY'], '2.5');
  assert.equal(info.metadata['']['UNITS'], 'Wh m-2 day-1');
  assertEstimateCovers(result.stderr, out);
});

for (const [flag, value, expected] of [
  ['--step', '2', /^eemt: --step must be in 3–60; got 2$/],
  ['--step', '61', /^eemt: --step must be in 3–60; got 61$/],
  ['--linke', '9', /^eemt: --linke must be in 1–8; got 9$/],
  ['--albedo', '-0.1', /^eemt: --albedo must be in 0–1; got -0.1$/],
  ['--threads', '0', /^eemt: --threads must be an integer in 1–32; got 0$/],
  ['--threads', '2.5', /^eemt: --threads must be an integer in 1–32; got 2.5$/],
  ['--step', 'abc', /option '--step <minutes>' argument 'abc' is invalid\. "abc" is not a number/],
  ['--step', '0x10', /option '--step <minutes>' argument '0x10' is invalid\. "0x10" is not a number/],
  ['--days', '0', /option '--days <list>' argument '0' is invalid\. day 0 in "0" is outside 1–365/],
  ['--days', '1-400', /'--days <list>'.*day 400 in "1-400" is outside 1–365/],
  ['--days', '31-1', /'--days <list>'.*"31-1" runs backwards; write 1-31/],
  ['--days', '1,,3', /'--days <list>'.*"" is not a day or a range of days \(e\.g\. 1-31,172,355\)/],
  ['--days', 'jan', /'--days <list>'.*"jan" is not a day or a range/],
  ['--days', '2.5', /'--days <list>'.*"2\.5" is not a day/],
  ['--tile-size', '20', /'--tile-size <cells>'.*tile size must be a multiple of 16 in 16–512, got 20/],
  ['--tile-size', '1024', /'--tile-size <cells>'.*got 1024/],
  ['--tile-size', 'big', /'--tile-size <cells>'.*"big" is not a number/],
] as const) {
  test(`eemt sol refuses ${flag} ${value} with a message naming the flag and exit code 2, writing nothing`, () => {
    const out = join(work, `refused${flag}${value}`);
    const result = run(['sol', dem, '--out', out, flag, value]);
    assert.notEqual(result.status, 0);
    assert.match(result.stderr.split('\n')[0]!, expected);
    assert.doesNotMatch(result.stderr, /linke_value|albedo_value|num_threads/, 'API field names are not CLI flags');
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    assert.throws(() => readdirSync(out));
  });
}

test('eemt sol --days computes those days only (monthly sums for complete months), --tile-size sets the GeoTIFF tiles', () => {
  const out = join(work, 'days');
  const result = run(['sol', dem, '--out', out, '--step', '60', '--days', '1-28, 32-59,172', '--tile-size', '16', '--threads', '2']);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^sol: 115 GeoTIFFs in .* — 320 cells × 57 days in /);
  assert.equal(readdirSync(join(out, 'global/daily')).length, 57);
  assert.deepEqual(readdirSync(join(out, 'global/monthly')), ['total_sun_feb_sum.tif']);
  const info = JSON.parse(execFileSync('gdalinfo', ['-json', join(out, 'insol/daily/hours_sun_day_172.tif')], { encoding: 'utf8' }));
  assert.deepEqual(info.bands[0].block, [16, 16]);
  assert.deepEqual(info.size, [20, 16]);
  assertEstimateCovers(result.stderr, out); // 57 days and one month, not a year
});

/** Every file under `root`, relative, sorted. */
function filesUnder(root: string): string[] {
  return (readdirSync(root, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
    .sort();
}

/** The values of a GeoTIFF's band as GDAL reads them (a text dump of every cell). */
function cellValues(path: string): string {
  return execFileSync('gdal_translate', ['-q', '-of', 'XYZ', path, '/vsistdout/'], { encoding: 'utf8' });
}

test('eemt sol --products writes only the files chosen; the monthly sums equal those of a default run', () => {
  const all = join(work, 'products-all');
  assert.equal(run(['sol', dem, '--out', all, '--step', '60', '--threads', '2']).status, 0);
  const monthly = join(work, 'products-monthly');
  const result = run(['sol', dem, '--out', monthly, '--step', '60', '--threads', '2', '--products', 'monthly']);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^sol: 12 GeoTIFFs in .* — 320 cells × 365 days in /);
  assert.deepEqual(filesUnder(monthly), readdirSync(join(all, 'global/monthly')).map((name) => `global/monthly/${name}`).sort());
  for (const name of readdirSync(join(monthly, 'global/monthly'))) {
    assert.equal(cellValues(join(monthly, 'global/monthly', name)), cellValues(join(all, 'global/monthly', name)), name);
  }
  const info = JSON.parse(execFileSync('gdalinfo', ['-json', join(monthly, 'global/monthly/total_sun_jul_sum.tif')], { encoding: 'utf8' }));
  assert.equal(info.metadata['']['PRODUCTS'], 'monthly');
  // a default run records nothing: its files are those of a run before the parameter existed
  const defaultInfo = JSON.parse(execFileSync('gdalinfo', ['-json', join(all, 'global/monthly/total_sun_jul_sum.tif')], { encoding: 'utf8' }));
  assert.equal(defaultInfo.metadata['']['PRODUCTS'], undefined);
  assertEstimateCovers(result.stderr, monthly);

  // one day's maps: that day alone is computed, and its maps are those of the whole year's run
  const day = join(work, 'products-day');
  const one = run(['sol', dem, '--out', day, '--step', '60', '--threads', '2', '--products', 'hours:172, daily:172']);
  assert.equal(one.status, 0, one.stderr);
  assert.match(one.stdout, /^sol: 2 GeoTIFFs in .* — 320 cells × 1 day in /);
  assert.deepEqual(filesUnder(day), ['global/daily/total_sun_day_172.tif', 'insol/daily/hours_sun_day_172.tif']);
  for (const rel of filesUnder(day)) assert.equal(cellValues(join(day, rel)), cellValues(join(all, rel)), rel);
});

test('eemt sol --days with --products: the maps chosen among the days computed; a day not computed is an error', () => {
  const out = join(work, 'days-products');
  const result = run(['sol', dem, '--out', out, '--step', '60', '--threads', '2', '--days', '1-31', '--products', 'daily:5']);
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^sol: 1 GeoTIFF in .* — 320 cells × 1 day in /);
  assert.deepEqual(filesUnder(out), ['global/daily/total_sun_day_5.tif']);
  const withMonth = join(work, 'days-products-month');
  assert.equal(run(['sol', dem, '--out', withMonth, '--step', '60', '--threads', '2', '--days', '1-40', '--products', 'monthly,hours']).status, 0);
  assert.deepEqual(filesUnder(withMonth), [...Array.from({ length: 40 }, (_, i) => `insol/daily/hours_sun_day_${i + 1}.tif`), 'global/monthly/total_sun_jan_sum.tif'].sort());
  for (const [args, message] of [
    [['--days', '1-31', '--products', 'daily:40'], /^eemt: --products: daily:40 selects day 40, which the run does not compute \(its days: 1-31\)$/],
    [['--days', '1-10', '--products', 'monthly'], /^eemt: --products selects only the monthly sums, and the run's days \(1-10\) complete no month$/],
  ] as const) {
    const refused = join(work, `refused-${args.join('')}`);
    const outcome = run(['sol', dem, '--out', refused, ...args]);
    assert.equal(outcome.status, 2, outcome.stderr);
    assert.match(outcome.stderr.trim(), message);
    assert.equal(existsSync(refused), false);
  }
});

for (const [value, expected] of [
  ['weekly', /^eemt: --products: unknown item "weekly"; products is a comma-separated list of monthly/],
  ['monthly,,daily', /^eemt: --products: item 2 of 3 is empty/],
  ['daily:366', /^eemt: --products: day 366 in "daily:366" is outside 1–365$/],
  ['hours:9-2', /^eemt: --products: "hours:9-2" runs backwards; write 2-9$/],
  ['', /^eemt: --products names no product/],
] as const) {
  test(`eemt sol refuses --products ${JSON.stringify(value)} naming the item, exit code 2, writing nothing`, () => {
    const out = join(work, `refused-products-${value.replace(/\W/g, '_')}`);
    const result = run(['sol', dem, '--out', out, '--products', value]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr.trim(), expected);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    assert.equal(existsSync(out), false);
  });
}

test('eemt sol refuses a run whose outputs cannot fit in the output folder, before computing, writing nothing', () => {
  const small = join(work, 'small-disk');
  mkdirSync(small);
  mountTmpfs(small, 512 * 1024); // a year of this DEM takes 742 files of at least a 4 KiB block each
  try {
    const out = join(small, 'out');
    const result = run(['sol', dem, '--out', out, '--step', '60', '--threads', '1']);
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`^eemt: Not enough disk space in ${out}: [\\d.]+ KB free, the job needs about [\\d.]+ MB$`, 'm'));
    assert.doesNotMatch(result.stderr, /\d+% /, 'no progress: nothing was computed');
    assert.equal(existsSync(out), false);
  } finally {
    unmount(small);
  }
});

test('eemt sol explains a file that is not a GeoTIFF and leaves no output folder', () => {
  const bad = join(work, 'not-a-dem.tif');
  writeFileSync(bad, 'this is not a TIFF');
  const out = join(work, 'bad');
  const result = run(['sol', bad, '--out', out]);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^eemt: .*TIFF/i);
  assert.equal(existsSync(out), false, 'the failed run removed the folder it created');
});

test('a failed run leaves a folder that existed before, with its contents', () => {
  const out = join(work, 'existing');
  mkdirSync(out);
  writeFileSync(join(out, 'keep.txt'), 'mine');
  const result = run(['sol', join(work, 'missing.tif'), '--out', out]);
  assert.equal(result.status, 2);
  assert.deepEqual(readdirSync(out), ['keep.txt']);
});

test('eemt eemt names its year flags', () => {
  const out = join(work, 'years');
  const result = run(['eemt', dem, '--out', out, '--start-year', '2021', '--end-year', '2020']);
  assert.equal(result.status, 2);
  assert.equal(result.stderr.trim(), 'eemt: --end-year (2020) must not be before --start-year (2021)');
  const early = run(['eemt', dem, '--out', out, '--start-year', '1979']);
  assert.equal(early.status, 2);
  assert.match(early.stderr.trim(), /^eemt: --start-year must be an integer in 1980–2024; got 1979$/);
  assert.equal(existsSync(out), false);
});

test('eemt eemt names a bad model choice and its allowed values, exit 2, writing nothing', () => {
  const out = join(work, 'choices');
  const cases = [
    ['--pet-method', 'penman', 'thornthwaite, hamon, hamon-linear'],
    ['--topo-npp', 'miami', 'regression, lieth'],
    ['--topo-radiation', 'cloudy', 'unshaded, shaded, realsky'],
    ['--lieth-npp-gate', 'snow', 'temperature, none'],
  ] as const;
  for (const [flag, value, allowed] of cases) {
    const result = run(['eemt', dem, '--out', out, flag, value]);
    assert.equal(result.status, 2, `${flag}: ${result.stderr}`);
    assert.equal(result.stderr.trim(), `eemt: ${flag} must be one of ${allowed}; got "${value}"`);
  }
  assert.equal(existsSync(out), false);
});

test('eemt --version prints the package version', () => {
  const result = run(['--version']);
  assert.equal(result.status, 0, result.stderr);
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  assert.equal(result.stdout.trim(), version);
});

test('eemt run as a program starts `sol` without NODE_EXTRA_CA_CERTS (no TLS there) and keeps it for every other command', () => {
  // Node reads the file at start-up and warns when it cannot: the warning shows whether the variable reached Node
  const env = { ...process.env, NODE_EXTRA_CA_CERTS: join(work, 'no-such-certificates.pem') };
  const sol = spawnSync(eemt, ['sol', dem, '--out', join(work, 'out-launcher'), '--days', '172', '--products', 'daily'], { encoding: 'utf8', cwd: work, env });
  assert.equal(sol.status, 0, sol.stderr);
  assert.doesNotMatch(sol.stderr, /extra certs/);
  assert.deepEqual(readdirSync(join(work, 'out-launcher/global/daily')), ['total_sun_day_172.tif']);
  const version = spawnSync(eemt, ['--version'], { encoding: 'utf8', cwd: work, env });
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stderr, /Ignoring extra certs from `.*no-such-certificates\.pem`/);
  // and the arguments reach the command as given, spaces and all
  const spaced = spawnSync(eemt, ['sol', join(work, 'no such dem.tif'), '--out', join(work, 'out spaced')], { encoding: 'utf8', cwd: work, env });
  assert.notEqual(spaced.status, 0);
  assert.match(spaced.stderr, /no such dem\.tif/);
});
