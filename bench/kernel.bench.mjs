// Solar core benchmark: horizon time and daily-kernel throughput (cell-days per second, one thread) on
// test/fixtures/mcn_10m.tif (step 15 min, Linke 3, albedo 0.2), no GeoTIFF writing. Prints JSON.
//
//   node bench/kernel.bench.mjs [--dem file.tif] [--days 365] [--rounds 2] [--baseline-ref main | --baseline <dist dir>] [--beam-part]
//
// --beam-part also measures this build's WebAssembly kernel giving the beam part of the global irradiation (what
// eemt's solar phase asks for its real-sky radiation; sol never does).
//
// This build is measured with its WebAssembly kernel and with its TypeScript kernel, the baseline with its
// WebAssembly kernel where it has one (compiled into build/wasm/ beside its dist/; --baseline-ref compiles the
// ref's assembly/ there), else its TypeScript kernel.
//
// With a baseline, both builds run in the same process, alternating round by round, so the ratio is measured
// side by side (this machine's timings drift by ±30 %). --baseline-ref builds that git ref's sources into
// bench/baseline/<ref>/dist (git archive + tsc, reusing this checkout's node_modules). The baseline may be
// today's engine (main: whole-grid horizon arrays) or a build with this one's interfaces.
// Run `npm run build` first (this build is read from dist/). Each round is timed by the wall clock and by the
// process's CPU time; on a shared machine the CPU time (kernel_cell_days_per_cpu_second, kernel_speedup_cpu)
// leaves out the time spent waiting for a core. Builds with `integrateBlockDays` get KERNEL_DAY_BATCH days per
// call, as the sol workers do.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const demPath = resolve(option('dem', join(repo, 'test/fixtures/mcn_10m.tif')));
const dayCount = Number(option('days', '365'));
const rounds = Number(option('rounds', '2'));
const days = Array.from({ length: dayCount }, (_, i) => 1 + Math.floor((i * 365) / dayCount));
const params = { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 };

/** Builds `ref`'s sources into bench/baseline/<ref>/dist once; returns that folder. */
function baselineBuild(ref) {
  const root = join(repo, 'bench/baseline', ref.replace(/[^\w.-]/g, '_'));
  const dist = join(root, 'dist');
  if (existsSync(join(dist, 'workflows/solarYear/tilePlan.js'))) return dist;
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  // with its WebAssembly kernels where the ref has them (assembly/ and the script that compiles them)
  const hasWasm = ['assembly', 'scripts/build-wasm.mjs'].every((path) => spawnSync('git', ['-C', repo, 'cat-file', '-e', `${ref}:${path}`]).status === 0);
  const paths = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', ...(hasWasm ? ['assembly', 'scripts'] : [])];
  const archive = execFileSync('git', ['-C', repo, 'archive', ref, ...paths], { maxBuffer: 1 << 28 });
  execFileSync('tar', ['-x', '-C', root], { input: archive });
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'));
  execFileSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (hasWasm) execFileSync(process.execPath, [join(root, 'scripts/build-wasm.mjs')], { stdio: 'inherit' });
  return dist;
}

const load = (dist, path) => import(pathToFileURL(join(dist, path)).href);

/** Loads one build and prepares its terrain; returns { name, layout, horizonSeconds, runDays(days) }. */
async function prepare(name, dist, kernelChoice = 'typescript', beamPart = false) {
  const { readDem } = await load(dist, 'raster/geotiff/readGeoTiff.js');
  const { createGeodesy } = await load(dist, 'raster/geo/geodesy.js');
  const { hornGradient } = await load(dist, 'science/terrain/slopeAspect.js');
  const { surfaceTerms } = await load(dist, 'science/solar/surface.js');
  const kernel = await load(dist, 'science/solar/dailyKernel.js');
  const plan = await load(dist, 'workflows/solarYear/tilePlan.js');
  const dem = await readDem(demPath);
  const { width, height } = dem.grid;
  const geodesy = createGeodesy(dem.grid);
  const cellSizeX = new Float64Array(height);
  const cellSizeY = new Float64Array(height);
  for (let row = 0; row < height; row++) ({ dx: cellSizeX[row], dy: cellSizeY[row] } = geodesy.cellSizeM(row));
  const gradient = hornGradient(dem.elevation, width, height, cellSizeX, cellSizeY);
  const surface = surfaceTerms(dem.elevation, gradient.fallEast, gradient.fallNorth);
  const position = (col, row) => ({ latitudeRad: (geodesy.latLon(col, row).latDeg * Math.PI) / 180, convergenceRad: geodesy.convergenceRad(col, row) });
  const sizes = { dx: cellSizeX, dy: cellSizeY };
  const tiles = plan.planComputeTiles
    ? plan.planSunTiles(width, height, plan.sunTileSize(Math.min(cellSizeX[0], cellSizeY[0])), sizes, dem.elevation, position).filter(Boolean)
    : plan.planSunTiles(width, height, sizes, surface.valid, surface.pressureRatio, position);
  const table = kernel.transmittanceTable(params.linkeTurbidity);
  const cells = width * height;
  const globalOut = new Float32Array(cells);
  const hoursOut = new Float32Array(cells);
  const whole = { rowStart: 0, rowEnd: height, colStart: 0, colEnd: width };
  const started = performance.now();
  let layout;
  let runDays;
  if (plan.rayTemplatesByRow) {
    // today's engine on main: whole-grid arrays, 32 far directions, 16 near steps, 128 near sectors
    const { computeHorizonRows } = await load(dist, 'science/solar/horizon.js');
    layout = { directions: 32, nearSectors: 128, nearSteps: 16 };
    const n = { directions: 32, nearDirections: 128, nearSteps: 16 };
    let zMaxM = -Infinity;
    for (const z of dem.elevation) if (z > zMaxM) zMaxM = z;
    const terrain = {
      elevation: dem.elevation,
      angles: new Int16Array(cells * 32),
      nearBound: new Int16Array(cells * 128),
      nearLower: new Int16Array(cells * 128),
      litBound: new Int16Array(cells * 32),
      ...n,
    };
    computeHorizonRows(dem.elevation, width, height, 0, height, zMaxM, plan.rayTemplatesByRow(width, height, { dx: cellSizeX, dy: cellSizeY }, 32, 128, 16), terrain.angles, terrain.nearBound, terrain.nearLower);
    kernel.sunlitBounds(surface, terrain.angles, terrain.nearBound, 32, 128, 0, cells, terrain.litBound);
    const samples = kernel.allocateDaySamples(kernel.sampleCapacity(params.stepMinutes), 16);
    runDays = (days) => {
      for (const day of days) {
        for (const tile of tiles) {
          kernel.sunSamplesForDay(day, tile, params, table, width, n, samples);
          kernel.integrateBlock(tile, width, height, samples, surface, terrain, params.albedo, globalOut, hoursOut);
        }
      }
    };
  } else {
    const { buildTerrainModel } = await load(dist, 'science/solar/terrainModel.js');
    const { horizonLayoutFor } = await load(dist, 'science/solar/horizonBudget.js');
    const { allocateTileHorizons, horizonTracer, tileHorizons } = await load(dist, 'science/solar/tileHorizons.js');
    const model = buildTerrainModel(Float32Array.from(dem.elevation), width, height, cellSizeX, cellSizeY);
    layout = horizonLayoutFor(model);
    if (kernelChoice === 'wasm') {
      // the WebAssembly kernel: everything in its memory, the whole grid as one tile and elevation window
      const { WasmDailyKernel } = await load(dist, 'science/solar/dailyKernelWasm.js');
      const wasm = beamPart ? new WasmDailyKernel(layout, kernel.sampleCapacity(params.stepMinutes), true) : new WasmDailyKernel(layout, kernel.sampleCapacity(params.stepMinutes));
      wasm.reserve(cells, cells);
      const wasmSurface = surfaceTerms(dem.elevation, gradient.fallEast, gradient.fallNorth, wasm.surfaceAllocator());
      tileHorizons(horizonTracer(model, layout), whole, wasmSurface, wasm.horizons);
      wasm.loadElevationWindow(model, whole, height, width);
      const terrain = { model, layout, horizons: wasm.horizons };
      runDays = (days) => {
        for (let first = 0; first < days.length; first += kernel.KERNEL_DAY_BATCH) {
          const chunk = days.slice(first, first + kernel.KERNEL_DAY_BATCH);
          for (const tile of tiles) {
            chunk.forEach((day, j) => kernel.sunSamplesForDay(day, tile, params, table, wasm.windowWidth, layout, wasm.daySamples[j]));
            wasm.integrateBlockDays(tile, whole, chunk.length, wasmSurface, terrain, params.albedo);
          }
        }
      };
      const horizonSeconds = (performance.now() - started) / 1000;
      return { name, dist, layout, horizonSeconds, validCells: dem.validCount, cells, runDays, globalOut };
    }
    const horizons = allocateTileHorizons(layout, cells);
    tileHorizons(horizonTracer(model, layout), whole, surface, horizons);
    const terrain = { model, layout, horizons };
    // days in batches where the kernel takes them (cells outer, days inner), one at a time before
    const batch = kernel.integrateBlockDays ? kernel.KERNEL_DAY_BATCH : 1;
    const samples = Array.from({ length: batch }, () => kernel.allocateDaySamples(kernel.sampleCapacity(params.stepMinutes), layout.nearSteps));
    const globalOuts = Array.from({ length: batch }, () => new Float32Array(cells));
    const hoursOuts = Array.from({ length: batch }, () => new Float32Array(cells));
    runDays = (days) => {
      for (let first = 0; first < days.length; first += batch) {
        const chunk = days.slice(first, first + batch);
        for (const tile of tiles) {
          chunk.forEach((day, j) => kernel.sunSamplesForDay(day, tile, params, table, width, layout, samples[j]));
          if (batch === 1) kernel.integrateBlock(tile, whole, samples[0], surface, terrain, params.albedo, globalOut, hoursOut);
          else kernel.integrateBlockDays(tile, whole, samples.slice(0, chunk.length), surface, terrain, params.albedo, globalOuts, hoursOuts);
        }
      }
    };
  }
  const horizonSeconds = (performance.now() - started) / 1000;
  return { name, dist, layout, horizonSeconds, validCells: dem.validCount, cells, runDays, globalOut };
}

const builds = [
  await prepare('this build, WebAssembly kernel', join(repo, 'dist'), 'wasm'),
  ...(args.includes('--beam-part') ? [await prepare('this build, WebAssembly kernel with the beam part (eemt)', join(repo, 'dist'), 'wasm', true)] : []),
  await prepare('this build, TypeScript kernel', join(repo, 'dist')),
];
const baselineDist = option('baseline', option('baseline-ref', null) && baselineBuild(option('baseline-ref')));
if (baselineDist) {
  // the baseline with its WebAssembly kernel when it has one (compiled beside its dist/), else its TypeScript kernel
  const dist = resolve(baselineDist);
  const wasm = existsSync(join(dist, 'science/solar/dailyKernelWasm.js')) && existsSync(join(dist, '../build/wasm/dailyKernel.wasm'));
  builds.push(await prepare(`baseline ${option('baseline-ref', baselineDist)}${wasm ? ', WebAssembly kernel' : ''}`, dist, wasm ? 'wasm' : 'typescript'));
}

const seconds = builds.map(() => []);
const cpuSeconds = builds.map(() => []);
for (let round = 0; round < rounds; round++) {
  builds.forEach((build, i) => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    build.runDays(days);
    const used = process.cpuUsage(cpu);
    seconds[i].push((performance.now() - started) / 1000);
    cpuSeconds[i].push((used.user + used.system) / 1e6);
  });
}
const results = builds.map((build, i) => {
  const best = Math.min(...seconds[i]);
  const bestCpu = Math.min(...cpuSeconds[i]);
  return {
    build: build.name,
    layout: build.layout,
    horizon_seconds: Number(build.horizonSeconds.toFixed(3)),
    horizon_us_per_cell: Number(((build.horizonSeconds / build.cells) * 1e6).toFixed(2)),
    kernel_seconds_per_round: seconds[i].map((s) => Number(s.toFixed(3))),
    kernel_cpu_seconds_per_round: cpuSeconds[i].map((s) => Number(s.toFixed(3))),
    kernel_cell_days_per_second: Math.round((build.validCells * days.length) / best),
    kernel_cell_days_per_cpu_second: Math.round((build.validCells * days.length) / bestCpu),
  };
});
const report = { benchmark: 'solar core: horizons and daily kernel, one thread, no writing', dem: demPath, days: days.length, rounds, results };
// each build's kernel throughput over the last one's (the baseline, or this build's TypeScript kernel)
const reference = results.at(-1);
report.kernel_speedup_over = reference.build;
report.kernel_speedup = Object.fromEntries(results.slice(0, -1).map((r) => [r.build, Number((r.kernel_cell_days_per_second / reference.kernel_cell_days_per_second).toFixed(2))]));
report.kernel_speedup_cpu = Object.fromEntries(results.slice(0, -1).map((r) => [r.build, Number((r.kernel_cell_days_per_cpu_second / reference.kernel_cell_days_per_cpu_second).toFixed(2))]));
console.log(JSON.stringify(report, null, 2));
