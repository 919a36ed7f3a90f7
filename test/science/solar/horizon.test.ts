import { test } from 'node:test';
import assert from 'node:assert/strict';
import { farHorizon } from '../../../src/science/solar/farHorizon.js';
import {
  EARTH_RADIUS_M,
  HORIZON_ANGLE_UNIT_RAD,
  MAX_HORIZON_UNITS,
  curvatureOverDistance,
  allocateNearFieldRay,
  nearFieldSteps,
  horizonAt,
  horizonTangentAlongRay,
  nearFieldReach,
  rayDirection,
} from '../../../src/science/solar/horizon.js';
import { nearCandidates, nearHorizonBounds, nearHorizonBoundsByCandidates, nearScratchLength, selectSectors } from '../../../src/science/solar/nearHorizonBounds.js';
import { hornGradient } from '../../../src/science/terrain/slopeAspect.js';
import { surfaceTerms } from '../../../src/science/solar/surface.js';
import { buildTerrainModel, type TerrainModel } from '../../../src/science/solar/terrainModel.js';
import { random, terrain } from '../../helpers/syntheticTerrain.js';
import { sweepScratch, sweptFarHorizons } from '../../../src/science/solar/sweptHorizon.js';
import { RAY_CELL_SIZE_ROWS, allocateTileHorizons, groupSectors, horizonTracer, sunlitBounds, tileHorizons, type HorizonLayout } from '../../../src/science/solar/tileHorizons.js';

const DEG = Math.PI / 180;

/** r.sun's ray marched the way the oracle does, with its own arithmetic (the independent reference). */
function oracleRayTangent(model: TerrainModel, row: number, col: number, gridAzimuthRad: number, firstStep = 1): number {
  const dx = model.cellSizeX[row]!;
  const dy = model.cellSizeY[row]!;
  const step = (dx + dy) / 2;
  const z0 = model.elevation[row * model.width + col]!;
  let best = -Infinity;
  for (let k = firstStep; ; k++) {
    const i = Math.floor((k * step * Math.sin(gridAzimuthRad)) / dx + 0.5);
    const j = Math.floor((k * step * Math.cos(gridAzimuthRad)) / dy + 0.5);
    const c = col + i;
    const r = row - j;
    if (c < 0 || c >= model.width || r < 0 || r >= model.height) return best;
    if (i === 0 && j === 0) continue;
    const zk = model.elevation[r * model.width + c]!;
    if (Number.isNaN(zk)) continue;
    const d = Math.hypot(i * dx, j * dy);
    const t = (zk - z0 - EARTH_RADIUS_M * (1 - Math.cos(d / EARTH_RADIUS_M))) / d;
    if (t > best) best = t;
  }
}

test('the curvature slope is R(1 − cos(d/R))/d, without its cancellation error', () => {
  for (const d of [1, 30, 1000, 50_000, 900_000]) {
    const exact = (2 * EARTH_RADIUS_M * Math.sin(d / (2 * EARTH_RADIUS_M)) ** 2) / d;
    assert.ok(Math.abs(curvatureOverDistance(d) / exact - 1) < 1e-9, `d ${d}`);
  }
  // about 7.85 cm of drop over a kilometre
  assert.ok(Math.abs(curvatureOverDistance(1000) * 1000 - 0.0785) < 1e-4);
});

test('from the apex of a cone every horizon is the cone flank going down', () => {
  const slope = 0.4;
  const model = terrain(41, 41, 10, 10, (x, y) => 1000 - slope * Math.hypot(x - 200, y - 200));
  for (let k = 0; k < 64; k++) {
    const azimuth = (2 * Math.PI * k) / 64;
    const { colPerStep, northPerStep } = rayDirection(10, 10, azimuth);
    const t = farHorizon(model, 20, 20, colPerStep, northPerStep, 1, { tangent: 0, step: 0 }).tangent;
    // every sample is at its own distance on the flank: (z − z0)/d = −slope, less a tiny curvature term
    assert.ok(Math.abs(t + slope) < 1e-4, `tan ${t}`);
    assert.equal(t, horizonTangentAlongRay(model, 20, 20, azimuth));
  }
});

test('from the bottom of a pit every horizon is the pit wall going up', () => {
  const slope = 0.25;
  const model = terrain(41, 41, 10, 10, (x, y) => 500 + slope * Math.hypot(x - 200, y - 200));
  for (let k = 0; k < 32; k++) {
    const { colPerStep, northPerStep } = rayDirection(10, 10, (2 * Math.PI * k) / 32);
    const t = farHorizon(model, 20, 20, colPerStep, northPerStep, 1, { tangent: 0, step: 0 }).tangent;
    assert.ok(Math.abs(t - slope) < 1e-4, `tan ${t}`);
  }
});

test('a wall to the east shades at atan(height / distance); open sky the other way and beyond the edge', () => {
  const width = 60;
  // 50 m wall occupying the column at x = 400 m
  const model = terrain(width, 11, 10, 10, (x) => (Math.abs(x - 400) < 1 ? 150 : 100));
  const east = rayDirection(10, 10, 90 * DEG);
  const west = rayDirection(10, 10, 270 * DEG);
  const out = { tangent: 0, step: 0 };
  const tEast = farHorizon(model, 5, 20, east.colPerStep, east.northPerStep, 1, out).tangent; // 200 m from the wall
  assert.ok(Math.abs(tEast - (50 / 200 - curvatureOverDistance(200))) < 1e-12, `${tEast}`);
  assert.equal(out.step, 20);
  // looking west over flat ground the horizon is the earth's curvature just below level
  const tWest = farHorizon(model, 5, 20, west.colPerStep, west.northPerStep, 1, out).tangent;
  assert.ok(tWest < 0 && tWest > -1e-4, `west ${tWest}`);
  // at the east edge looking east there is no terrain at all
  assert.equal(farHorizon(model, 5, width - 1, east.colPerStep, east.northPerStep, 1, out).tangent, -Infinity);
  // a far field starting beyond the wall sees only the flat ground behind it
  assert.ok(farHorizon(model, 5, 20, east.colPerStep, east.northPerStep, 21, out).tangent < 0);
});

test('a long ridge is seen at the angle of its crest in every direction that reaches it', () => {
  // an east-west ridge 60 m high, 1 km north of the cell's row, on flat ground
  const model = terrain(201, 121, 10, 10, (_x, y) => (Math.abs(y - 1100) < 1 ? 160 : 100));
  const row = 110; // y = 100 m
  for (const azimuthDeg of [0, 15, 30, 45, 315, 340]) {
    const az = azimuthDeg * DEG;
    const { colPerStep, northPerStep } = rayDirection(10, 10, az);
    const t = farHorizon(model, row, 100, colPerStep, northPerStep, 1, { tangent: 0, step: 0 }).tangent;
    // the ray meets the crest row at the cell nearest to its sample; its distance is about 1000/cos(az)
    const d = 1000 / Math.cos(az);
    assert.ok(Math.abs(t - (60 / d - curvatureOverDistance(d))) < 60 / d ** 2 * 15, `az ${azimuthDeg}: ${t} vs ${60 / d}`);
    assert.equal(t, horizonTangentAlongRay(model, row, 100, az));
    assert.ok(Math.abs(t - oracleRayTangent(model, row, 100, az)) < 1e-9);
  }
});

test('nodata cells are transparent: the wall behind them still shades', () => {
  const model = terrain(60, 11, 10, 10, (x) => (Math.abs(x - 400) < 1 ? 150 : 100));
  for (let r = 0; r < 11; r++) for (let c = 25; c < 35; c++) model.elevation[r * 60 + c] = NaN;
  const rebuilt = buildTerrainModel(model.elevation, 60, 11, model.cellSizeX, model.cellSizeY);
  const east = rayDirection(10, 10, 90 * DEG);
  const t = farHorizon(rebuilt, 5, 20, east.colPerStep, east.northPerStep, 1, { tangent: 0, step: 0 }).tangent;
  assert.ok(Math.abs(t - (0.25 - curvatureOverDistance(200))) < 1e-12, `tan ${t}`);
});

test('the maximum pyramid holds the largest valid elevation of every block', () => {
  const next = random(5);
  const width = 37;
  const height = 22;
  const z = Float32Array.from({ length: width * height }, () => (next() < 0.1 ? NaN : 1000 * next()));
  const model = buildTerrainModel(z, width, height, new Float64Array(height).fill(1), new Float64Array(height).fill(1));
  assert.equal(model.pyramid.length, 6); // 37 → 19 → 10 → 5 → 3 → 2 → 1
  model.pyramid.forEach((level, i) => {
    const size = 2 ** (i + 1);
    const levelWidth = Math.ceil(width / size);
    for (let br = 0; br < Math.ceil(height / size); br++) {
      for (let bc = 0; bc < levelWidth; bc++) {
        let m = -Infinity;
        for (let r = br * size; r < Math.min(height, (br + 1) * size); r++) for (let c = bc * size; c < Math.min(width, (bc + 1) * size); c++) if (z[r * width + c]! > m) m = z[r * width + c]!;
        assert.equal(level[br * levelWidth + bc], m);
      }
    }
  });
  assert.equal(model.pyramid.at(-1)![0], model.zMaxM);
});

test('far horizons with the pyramid equal an independent march of r.sun\'s ray', () => {
  const next = random(7);
  for (const [width, height, dx, dy] of [
    [67, 53, 10, 10],
    [40, 90, 2.5, 3.7],
    [120, 96, 1, 1],
    [33, 17, 30.9, 20.1],
  ] as const) {
    const model = terrain(width, height, dx, dy, (x, y) => 300 + 40 * Math.sin(x / (6 * dx)) * Math.cos(y / (9 * dy)) + 8 * next() + 0.05 * x);
    for (let i = 0; i < 30; i++) model.elevation[Math.floor(next() * width * height)] = NaN;
    const withHoles = buildTerrainModel(model.elevation, width, height, model.cellSizeX, model.cellSizeY);
    const out = { tangent: 0, step: 0 };
    let checked = 0;
    for (let row = 0; row < height; row += 3) {
      for (let col = 0; col < width; col += 4) {
        if (Number.isNaN(withHoles.elevation[row * width + col]!)) continue;
        for (let k = 0; k < 40; k++) {
          // the cardinal and diagonal directions exactly, the rest at odd angles
          const azimuth = k < 8 ? k * 45 * DEG : k * 0.157 + 0.01;
          const { colPerStep, northPerStep } = rayDirection(dx, dy, azimuth);
          for (const firstStep of [1, 6, 17]) {
            const fast = farHorizon(withHoles, row, col, colPerStep, northPerStep, firstStep, out).tangent;
            // the same samples and arithmetic as the readable tracer: equal to the last bit
            assert.equal(fast, horizonTangentAlongRay(withHoles, row, col, azimuth, firstStep));
            // and r.sun's own formula (1 − cos(d/R) loses ~1e-12 to cancellation)
            const slow = oracleRayTangent(withHoles, row, col, azimuth, firstStep);
            if (slow === -Infinity) assert.equal(fast, slow);
            else assert.ok(Math.abs(fast - slow) < 1e-9, `${width}×${height} row ${row} col ${col} az ${azimuth} from ${firstStep}: ${fast} vs ${slow}`);
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 5000);
  }
});

test('stored horizons are interpolated between directions and wrap around north', () => {
  const directions = 8;
  const angles = Int16Array.from({ length: 3 * directions }, (_, i) => 100 * i - 700);
  const cell = 1;
  const base = cell * directions;
  assert.equal(horizonAt(angles, cell, directions, 2 * (Math.PI / 4)), angles[base + 2]! * HORIZON_ANGLE_UNIT_RAD);
  // halfway between north-west (7) and north (0)
  const mid = horizonAt(angles, cell, directions, 2 * Math.PI - Math.PI / 8);
  assert.ok(Math.abs(mid - 0.5 * (angles[base + 7]! + angles[base]!) * HORIZON_ANGLE_UNIT_RAD) < 1e-12);
  assert.ok(Math.abs(horizonAt(angles, cell, directions, -Math.PI / 8) - mid) < 1e-12);
});

test('near-field sector bounds bracket the exact near-field horizon at every azimuth of the sector', () => {
  const next = random(11);
  const width = 40;
  const height = 36;
  const model = terrain(width, height, 10, 10, (x, y) => 800 + 35 * Math.sin(x / 25) * Math.cos(y / 30) + 12 * next());
  model.elevation[18 * width + 21] = NaN;
  const sectors = 64;
  const steps = 8;
  const candidates = nearCandidates(10, 10, sectors, steps, width);
  const upper = new Int16Array(sectors);
  const lower = new Int16Array(sectors);
  let lowerUseful = 0;
  for (const [row, col] of [[18, 20], [5, 5], [30, 33], [1, 38], [20, 10], [12, 14], [22, 25]] as const) {
    nearHorizonBounds(model.elevation, width, height, row, col, candidates, upper, lower, 0, new Float64Array(nearScratchLength(candidates)));
    for (let k = 0; k < sectors; k++) {
      const ub = upper[k]! * HORIZON_ANGLE_UNIT_RAD;
      const lb = lower[k]! * HORIZON_ANGLE_UNIT_RAD;
      if (lower[k]! > -MAX_HORIZON_UNITS) lowerUseful++;
      for (let i = 0; i <= 20; i++) {
        const azimuth = ((k + i / 20) * 2 * Math.PI) / sectors;
        const exact = Math.atan(horizonTangentAlongRay(model, row, col, azimuth, 1, steps));
        assert.ok(exact <= ub + 1e-12, `upper: cell ${row},${col} sector ${k}: ${exact} > ${ub}`);
        assert.ok(exact >= lb - 1e-12, `lower: cell ${row},${col} sector ${k}: ${exact} < ${lb}`);
      }
    }
  }
  assert.ok(lowerUseful > 200, `lower bounds informative in ${lowerUseful} sectors`);
});

test('the near-field candidates of a step are the cells its ray lands on in the sector, found exactly', () => {
  for (const [dx, dy, sectors, steps] of [[10, 10, 64, 8], [4, 10, 48, 9], [30, 90, 32, 6], [1, 1, 256, 24]] as const) {
    const candidates = nearCandidates(dx, dy, sectors, steps, 1000);
    let listed = 0;
    let landed = 0;
    for (let k = 0; k < sectors; k++) {
      // where each step lands, at 4000 azimuths across the sector (both ends included)
      const hits = Array.from({ length: steps }, () => new Set<string>());
      for (let i = 0; i <= 4000; i++) {
        const { colPerStep, northPerStep } = rayDirection(dx, dy, ((k + i / 4000) * 2 * Math.PI) / sectors);
        for (let s = 1; s <= steps; s++) hits[s - 1]!.add(`${Math.floor(s * colPerStep + 0.5)},${-Math.floor(s * northPerStep + 0.5)}`);
      }
      for (let s = 1; s <= steps; s++) {
        const group = k * steps + s - 1;
        const cells = new Set<string>();
        for (let i = candidates.lowerStart[group]!; i < candidates.lowerStart[group + 1]!; i++) cells.add(`${candidates.lower.colOffset[i]},${candidates.lower.rowOffset[i]}`);
        const step = hits[s - 1]!;
        step.delete('0,0');
        for (const cell of step) assert.ok(cells.has(cell), `${dx} × ${dy} m, sector ${k}, step ${s}: ${cell} is not a candidate`);
        listed += cells.size;
        landed += step.size;
      }
    }
    // nothing more than the cells landed on, but for the margin's second cell where a step only touches a
    // cell boundary (at 3.5 cells due west, say, it lands on −3, not −4) and pieces narrower than the sampling
    assert.ok(listed <= landed * 1.02, `${dx} × ${dy} m: ${listed} candidates for ${landed} cells landed on`);
  }
});

test("a row's near-field candidates hold the cells of rays traced with the cell size of a row 32 rows away (geographic cell widths)", () => {
  const width = 10;
  const height = 200;
  // cell widths shrinking 0.02 % a row (on a geographic grid at 60° N with 1″ cells it is 0.0008 %)
  const cellSizeX = Float64Array.from({ length: height }, (_, row) => 15 * (1 - 2e-4 * row));
  const cellSizeY = new Float64Array(height).fill(30);
  const model = buildTerrainModel(new Float32Array(width * height).fill(100), width, height, cellSizeX, cellSizeY);
  const layout = { directions: 16, nearSectors: 64, nearSteps: 12 };
  const tracer = horizonTracer(model, layout);
  let checked = 0;
  for (const row of [32, 70, 100, 167]) {
    const { sectors, steps, lowerStart, lower } = tracer.candidatesForRow(row);
    for (const rayRow of [row - RAY_CELL_SIZE_ROWS, row, row + RAY_CELL_SIZE_ROWS]) {
      for (let k = 0; k < sectors; k++) {
        for (let i = 0; i <= 200; i++) {
          // the ray as the kernel traces it: with its sun tile's middle row's cell size
          const { colPerStep, northPerStep } = rayDirection(cellSizeX[rayRow]!, cellSizeY[rayRow]!, ((k + i / 200) * 2 * Math.PI) / sectors);
          for (let s = 1; s <= steps; s++) {
            const col = Math.floor(s * colPerStep + 0.5);
            const r = -Math.floor(s * northPerStep + 0.5);
            if (col === 0 && r === 0) continue;
            const group = k * steps + s - 1;
            let found = false;
            for (let j = lowerStart[group]!; j < lowerStart[group + 1]! && !found; j++) found = lower.colOffset[j] === col && lower.rowOffset[j] === r;
            assert.ok(found, `row ${row}, ray with row ${rayRow}'s cell size, sector ${k}, step ${s}: ${col},${r}`);
            checked++;
          }
        }
      }
    }
  }
  assert.ok(checked > 400_000);
});

test('near-field bounds from the disc of candidate cells equal the readable form on every cell, at the edges too', () => {
  const next = random(5);
  for (const [dx, dy, sectors, steps] of [[10, 10, 64, 8], [5, 12, 48, 6]] as const) {
    const width = 34;
    const height = 30;
    const model = terrain(width, height, dx, dy, (x, y) => 500 + 25 * Math.sin(x / 20) * Math.cos(y / 35) + 15 * next());
    for (const cell of [3 * width + 2, 15 * width + 17, 28 * width + 30, 7 * width + 25]) model.elevation[cell] = NaN;
    const candidates = nearCandidates(dx, dy, sectors, steps, width);
    const some = new Uint8Array(sectors).map((_, k) => (k % 3 === 1 ? 0 : 1));
    for (const selection of [null, selectSectors(candidates, some)]) {
      const fast = [new Int16Array(sectors), new Int16Array(sectors)] as const;
      const readable = [new Int16Array(sectors), new Int16Array(sectors)] as const;
      const scratch = new Float64Array(nearScratchLength(candidates));
      let edge = 0;
      for (let row = 0; row < height; row++) {
        for (let col = 0; col < width; col++) {
          nearHorizonBounds(model.elevation, width, height, row, col, candidates, fast[0], fast[1], 0, scratch, selection);
          nearHorizonBoundsByCandidates(model.elevation, width, height, row, col, candidates, readable[0], readable[1], 0, selection);
          assert.deepEqual(fast, readable, `cell ${row},${col} (${dx} × ${dy} m, ${selection ? 'some' : 'all'} sectors)`);
          if (row < candidates.reachRows || col < candidates.reachCols || row >= height - candidates.reachRows || col >= width - candidates.reachCols) edge++;
        }
      }
      assert.ok(edge > width * height / 2, `${edge} cells near the edge`);
    }
  }
});

test('near-field rays stay within nearFieldReach, and reach its edge less one', () => {
  for (const [dx, dy, steps] of [[10, 10, 16], [4, 10, 9], [12, 5, 24], [30, 30, 0]] as const) {
    const reach = nearFieldReach(dx, dy, steps);
    let cols = 0;
    let rows = 0;
    const ray = allocateNearFieldRay(steps);
    for (let a = 0; a < 3600; a++) {
      const count = nearFieldSteps(dx, dy, (a * 2 * Math.PI) / 3600, steps, ray);
      for (let j = 0; j < count; j++) {
        cols = Math.max(cols, Math.abs(ray.colOffset[j]!));
        rows = Math.max(rows, Math.abs(ray.rowOffset[j]!));
      }
    }
    assert.ok(cols <= reach.cols && rows <= reach.rows, `${dx} × ${dy} m, ${steps} steps: ${cols}, ${rows} within ${reach.cols}, ${reach.rows}`);
    if (steps > 0) assert.deepEqual([cols, rows], [reach.cols - 1, reach.rows - 1], `${dx} × ${dy} m, ${steps} steps`);
  }
});

test("lit bounds equal the readable rule: the far and near bounds, and the plane's ⌈atan(tan)/unit⌉ + 1 wherever it is above them", () => {
  const next = random(41);
  const directions = 64;
  const nearSectors = 128;
  const cells = 400;
  // steep and gentle planes facing every way (slopes 0.01–3)
  const slope = Float64Array.from({ length: cells }, () => 0.01 + 3 * next() ** 2);
  const aspect = Float64Array.from({ length: cells }, () => 2 * Math.PI * next());
  const surface = surfaceTerms(
    new Float64Array(cells).fill(1000),
    Float64Array.from(slope, (g, i) => g * Math.sin(aspect[i]!)),
    Float64Array.from(slope, (g, i) => g * Math.cos(aspect[i]!)),
  );
  const far = new Int16Array(cells * directions);
  const nearUpper = new Int16Array(cells * nearSectors).fill(-MAX_HORIZON_UNITS);
  // the far field at, just below and just above the plane's own bound toward each direction, or anywhere
  for (let cell = 0; cell < cells; cell++) {
    for (let k = 0; k < directions; k++) {
      const planeTan = -Math.cos((2 * Math.PI * k) / directions - aspect[cell]! - Math.PI) * slope[cell]!;
      const planeUnits = Math.ceil(Math.atan(Math.max(planeTan, 0)) / HORIZON_ANGLE_UNIT_RAD) + 1;
      const pick = next();
      far[cell * directions + k] = pick < 0.75 ? planeUnits + Math.floor(next() * 5) - 2 : Math.floor((next() * 2 - 1) * MAX_HORIZON_UNITS);
    }
  }
  const readable = (cell: number, k: number): number => {
    const base = cell * directions;
    let bound = Math.max(far[base + k]!, far[base + ((k + 1) % directions)]!);
    for (let j = 0; j < nearSectors / directions; j++) bound = Math.max(bound, nearUpper[cell * nearSectors + k * (nearSectors / directions) + j]!);
    if (surface.inclined[cell] === 1) {
      // the plane's self-shading tan −(n_E sin az + n_N cos az)/n_U, its largest over the sector
      const at = (az: number) => -(surface.normalEast[cell]! * Math.sin(az) + surface.normalNorth[cell]! * Math.cos(az)) / surface.normalUp[cell]!;
      let worst = Math.max(at((2 * Math.PI * k) / directions), at((2 * Math.PI * (k + 1)) / directions));
      const up = Math.atan2(-surface.normalEast[cell]!, -surface.normalNorth[cell]!);
      const upTurn = up < 0 ? up + 2 * Math.PI : up;
      if (Math.min(directions - 1, Math.floor((upTurn / (2 * Math.PI)) * directions)) === k) worst = Math.max(worst, Math.hypot(surface.normalEast[cell]!, surface.normalNorth[cell]!) / surface.normalUp[cell]!);
      if (worst > 0) bound = Math.max(bound, Math.ceil(Math.atan(worst) / HORIZON_ANGLE_UNIT_RAD) + 1);
    }
    return bound;
  };
  const out = new Int16Array(directions);
  let raisedByPlane = 0;
  for (let cell = 0; cell < cells; cell++) {
    sunlitBounds(surface, far, nearUpper, directions, nearSectors, cell, out);
    for (let k = 0; k < directions; k++) {
      const expected = readable(cell, k);
      assert.equal(out[k], expected, `cell ${cell} sector ${k}`);
      if (expected > Math.max(far[cell * directions + k]!, far[cell * directions + ((k + 1) % directions)]!)) raisedByPlane++;
    }
  }
  // the plane decided a good share of the bounds, and the far field the rest
  assert.ok(raisedByPlane > 0.1 * cells * directions && raisedByPlane < 0.9 * cells * directions, `${raisedByPlane}`);
});

test('the near-field steps are the distinct cells of the first n ray steps', () => {
  const cells = (dx: number, dy: number, azimuth: number, steps: number) => {
    const out: [number, number][] = [];
    const ray = allocateNearFieldRay(steps);
    for (let j = 0, count = nearFieldSteps(dx, dy, azimuth, steps, ray); j < count; j++) {
      const c = ray.colOffset[j]!;
      const r = ray.rowOffset[j]!;
      out.push([c, r]);
      const d = Math.hypot(c * dx, r * dy);
      assert.ok(Math.abs(1 / ray.inverseDistance[j]! - d) < 1e-9 && ray.curvatureSlope[j] === curvatureOverDistance(1 / ray.inverseDistance[j]!));
    }
    return out;
  };
  // sin 35° = 0.574 columns and cos 35° = 0.819 rows north per step
  assert.deepEqual(cells(10, 10, 35 * DEG, 6), [[1, -1], [1, -2], [2, -2], [2, -3], [3, -4], [3, -5]]);
  // 5 m × 12 m cells: a step of 8.5 m north is 0.71 rows, so steps 1 and 2 land on the same cell
  assert.deepEqual(cells(5, 12, 0, 4), [[0, -1], [0, -2], [0, -3]]);
});

/** Surface terms of a model's whole grid (what the pipeline gives a tile covering the grid). */
function wholeSurface(model: TerrainModel) {
  const z = Float64Array.from(model.elevation);
  const gradient = hornGradient(z, model.width, model.height, model.cellSizeX, model.cellSizeY);
  return surfaceTerms(z, gradient.fallEast, gradient.fallNorth);
}

test('tile horizons: far directions swept, near bounds per sector, and a cell\'s values do not depend on the tile', () => {
  const next = random(23);
  const width = 48;
  const height = 40;
  const model = terrain(width, height, 5, 5, (x, y) => 900 + 30 * Math.sin(x / 40) * Math.cos(y / 35) + 3 * next());
  model.elevation[7 * width + 9] = NaN;
  // 64 far directions: lit and dark bounds per 32 group sectors of two far sectors
  const layout: HorizonLayout = { directions: 64, nearSectors: 128, nearSteps: 6 };
  const groups = groupSectors(layout);
  assert.equal(groups, 32);
  const tracer = horizonTracer(buildTerrainModel(model.elevation, width, height, model.cellSizeX, model.cellSizeY), layout);
  const surface = wholeSurface(tracer.model);
  const whole = allocateTileHorizons(layout, width * height);
  tileHorizons(tracer, { rowStart: 0, rowEnd: height, colStart: 0, colEnd: width }, surface, whole);
  // the far field is the sweep's (sweptHorizon.test.ts), which samples r.sun's own ray along the axes and diagonals
  const swept = new Int16Array(width * height * layout.directions);
  sweptFarHorizons(tracer.model, { rowStart: 0, rowEnd: height, colStart: 0, colEnd: width }, layout.directions, layout.nearSteps, swept, sweepScratch());
  for (let cell = 0; cell < width * height; cell++) {
    if (surface.valid[cell] !== 1) continue;
    for (let k = 0; k < layout.directions; k++) assert.equal(whole.far[cell * layout.directions + k], swept[cell * layout.directions + k]);
  }
  for (const [row, col] of [[3, 4], [20, 20], [39, 47], [10, 30]] as const) {
    const cell = row * width + col;
    for (let k = 0; k < layout.directions; k += layout.directions / 8) {
      const t = oracleRayTangent(tracer.model, row, col, (2 * Math.PI * k) / layout.directions, layout.nearSteps + 1);
      const exact = Math.max(-MAX_HORIZON_UNITS, Math.round(Math.atan(t) / HORIZON_ANGLE_UNIT_RAD));
      assert.ok(Math.abs(whole.far[cell * layout.directions + k]! - exact) <= 1, `cell ${cell} direction ${k}`);
    }
  }
  // the same cells computed as a small tile in the middle, with tile-local arrays
  const block = { rowStart: 13, rowEnd: 29, colStart: 5, colEnd: 26 };
  const blockWidth = block.colEnd - block.colStart;
  const pick = <T extends Float64Array | Uint8Array>(a: T): T => {
    const out = new (a.constructor as new (n: number) => T)((block.rowEnd - block.rowStart) * blockWidth);
    for (let r = block.rowStart; r < block.rowEnd; r++) out.set(a.subarray(r * width + block.colStart, r * width + block.colEnd), (r - block.rowStart) * blockWidth);
    return out;
  };
  const blockSurface = {
    cellCount: (block.rowEnd - block.rowStart) * blockWidth,
    valid: pick(surface.valid),
    inclined: pick(surface.inclined),
    normalEast: pick(surface.normalEast),
    normalNorth: pick(surface.normalNorth),
    normalUp: pick(surface.normalUp),
    skyView: pick(surface.skyView),
    muneerSlope: pick(surface.muneerSlope),
    shadedDiffuseFactor: pick(surface.shadedDiffuseFactor),
    groundView: pick(surface.groundView),
    pressureRatio: pick(surface.pressureRatio),
  };
  // lit bounds: never below the far field at the group's directions; dark bounds: at least its lowest
  // direction and the near field's lowest lower bound, never above the lit bound; lit everywhere: the largest
  const nearPerGroup = (2 * layout.nearSectors) / layout.directions;
  for (let cell = 0; cell < width * height; cell++) {
    if (surface.valid[cell] !== 1) continue;
    let largest = -Infinity;
    for (let g = 0; g < groups; g++) {
      const farAt = [0, 1, 2].map((i) => whole.far[cell * layout.directions + ((2 * g + i) % layout.directions)]!);
      const nearLowest = Math.min(...whole.nearLower.subarray(cell * layout.nearSectors + g * nearPerGroup, cell * layout.nearSectors + (g + 1) * nearPerGroup));
      const lit = whole.litBound[cell * groups + g]!;
      const dark = whole.darkBound[cell * groups + g]!;
      assert.ok(lit >= Math.max(...farAt) && dark >= Math.min(...farAt) && dark >= nearLowest && dark <= lit, `cell ${cell} group ${g}`);
      largest = Math.max(largest, lit);
    }
    assert.equal(whole.litEverywhere[cell], largest);
  }
  const tile = allocateTileHorizons(layout, 1000);
  tileHorizons(horizonTracer(tracer.model, layout), block, blockSurface, tile);
  for (let r = block.rowStart; r < block.rowEnd; r++) {
    for (let c = block.colStart; c < block.colEnd; c++) {
      const local = (r - block.rowStart) * blockWidth + (c - block.colStart);
      const global = r * width + c;
      for (const [a, b, n] of [
        [tile.far, whole.far, layout.directions],
        [tile.litBound, whole.litBound, groups],
        [tile.darkBound, whole.darkBound, groups],
        [tile.litEverywhere, whole.litEverywhere, 1],
        [tile.nearUpper, whole.nearUpper, layout.nearSectors],
        [tile.nearLower, whole.nearLower, layout.nearSectors],
      ] as const) {
        assert.deepEqual(a.subarray(local * n, (local + 1) * n), b.subarray(global * n, (global + 1) * n), `cell ${r},${c}`);
      }
    }
  }
});

test('a row gets the near-field candidates of its band whatever rows were asked for before (geographic cell widths)', () => {
  const width = 12;
  const height = 200;
  // cell widths shrinking down the grid as on a geographic grid at high latitude: 0.01 % a row
  const cellSizeX = Float64Array.from({ length: height }, (_, row) => 30 * (1 - 1e-4 * row));
  const cellSizeY = new Float64Array(height).fill(90);
  const model = buildTerrainModel(new Float32Array(width * height).fill(100), width, height, cellSizeX, cellSizeY);
  const layout = { directions: 8, nearSectors: 16, nearSteps: 4 };
  const down = horizonTracer(model, layout);
  const up = horizonTracer(model, layout);
  const rows = Array.from({ length: height }, (_, row) => row);
  const first = rows.map((row) => down.candidatesForRow(row));
  const second = [...rows].reverse().map((row) => up.candidatesForRow(row)).reverse();
  for (const row of rows) {
    assert.deepEqual(second[row]!.disc.inverseDistance, first[row]!.disc.inverseDistance, `row ${row}`);
    // distances within the tolerance of those at the row's own cell size
    const { colOffset, rowOffset, inverseDistance } = first[row]!.disc;
    inverseDistance.forEach((v, i) => {
      const own = 1 / Math.hypot(colOffset[i]! * cellSizeX[row]!, rowOffset[i]! * cellSizeY[row]!);
      assert.ok(Math.abs(v / own - 1) <= 5e-4 + 1e-12, `row ${row}`);
    });
  }
  const bands = new Set(first).size;
  assert.ok(bands > 20 && bands < height / 4, `${bands} bands of rows`);
});
