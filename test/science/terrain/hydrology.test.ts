// Depression filling, D-infinity flow and specific catchment area against analytic answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillDepressions, nextDoubleUp } from '../../../src/science/terrain/fillDepressions.js';
import { flowDirectionsDinf } from '../../../src/science/terrain/flowDinf.js';
import { specificCatchmentArea } from '../../../src/science/terrain/catchment.js';
import type { GridGeometry } from '../../../src/science/terrain/hydroGrid.js';

function grid(width: number, height: number, dx: GridGeometry['dx'] = 10, dy = 10): GridGeometry {
  return { width, height, dx, dy };
}

/** z(row, col) sampled on a grid. */
function dem(g: GridGeometry, f: (row: number, col: number) => number): Float64Array {
  const z = new Float64Array(g.width * g.height);
  for (let r = 0; r < g.height; r++) for (let c = 0; c < g.width; c++) z[r * g.width + c] = f(r, c);
  return z;
}

function route(z: Float64Array, g: GridGeometry, contourWidth: 'cell' | 'flowNormal' = 'cell') {
  const filled = fillDepressions(z, g);
  const flow = flowDirectionsDinf(filled, g);
  return { filled, flow, ...specificCatchmentArea(flow, g, { contourWidth }) };
}

/** Σ area over cells with no receiver must equal the valid area (every drop leaves somewhere, exactly once). */
function assertMassConserved(z: Float64Array, g: GridGeometry, area: Float64Array, receiverA: Int32Array) {
  let outflow = 0;
  let total = 0;
  for (let r = 0; r < g.height; r++) {
    const cellArea = (typeof g.dx === 'number' ? g.dx : g.dx[r]!) * g.dy;
    for (let c = 0; c < g.width; c++) {
      const i = r * g.width + c;
      if (Number.isNaN(z[i]!)) {
        assert.ok(Number.isNaN(area[i]!));
        continue;
      }
      total += cellArea;
      assert.ok(Number.isFinite(area[i]!) && area[i]! >= cellArea * (1 - 1e-12));
      if (receiverA[i]! < 0) outflow += area[i]!;
    }
  }
  assert.ok(Math.abs(outflow - total) <= 1e-9 * total, `outflow ${outflow} vs total ${total}`);
}

test('nextDoubleUp is the next representable double', () => {
  for (const x of [2500, 1, 0.1, -3.5, -1e-300, 1e300, 123456.789]) {
    const y = nextDoubleUp(x);
    assert.ok(y > x, `${y} > ${x}`);
    assert.equal((x + y) / 2 === x || (x + y) / 2 === y, true, 'nothing in between');
  }
  assert.equal(nextDoubleUp(0), Number.MIN_VALUE);
  assert.equal(nextDoubleUp(1), 1 + Number.EPSILON);
});

test('tilted plane along a grid axis: a = upslope length exactly (dx ≠ dy)', () => {
  const g = grid(30, 40, 7, 12);
  const z = dem(g, (r) => 1000 - 0.2 * r * g.dy); // falls to the south
  const { filled, flow, specificArea, area } = route(z, g);
  assert.deepEqual(filled, z, 'nothing to fill on a plane');
  for (let r = 0; r < g.height - 1; r++) {
    for (let c = 0; c < g.width; c++) {
      const i = r * g.width + c;
      assert.ok(Math.abs(flow.angle[i]! - 1.5 * Math.PI) < 1e-12, 'flows due south');
      assert.ok(Math.abs(flow.slope[i]! - 0.2) < 1e-12, 'tan β = 0.2');
      assert.ok(Math.abs(specificArea[i]! - (r + 1) * g.dy) < 1e-9, `a(${r},${c})`);
    }
  }
  assertMassConserved(z, g, area, flow.receiverA);
});

/**
 * Oblique planes. Within 45° of south the flow leaves every cell through its south side, so by symmetry along
 * the rows the upslope area is exact whatever the D-inf split, and flow-normal contour widths give a = the
 * fall-line length. Beyond 45° (60° here) the flow leaves through the east side, and Tarboton's angle-
 * proportional split (not tan-proportional) loses a few per cent: a is 1 − 0.866 = 13 % short at 60°.
 */
for (const thetaDeg of [0, 15, 30, 45, 60]) {
  test(`tilted plane, fall line ${thetaDeg}° from south: angle exact, flowNormal a ≈ upslope length`, () => {
    const g = grid(160, 50, 10, 10);
    const th = (thetaDeg * Math.PI) / 180;
    // z falls towards south-east: downslope direction is (east sin θ, south cos θ)
    const z = dem(g, (r, c) => 2000 - 0.1 * (r * g.dy * Math.cos(th) + c * 10 * Math.sin(th)));
    const cellWidth = route(z, g, 'cell');
    const normal = route(z, g, 'flowNormal');
    const expectedAngle = 1.5 * Math.PI + th;
    for (const r of [10, 25, 40]) {
      const c = 150; // far enough east that the upslope fall line reaches the north edge
      const i = r * g.width + c;
      assert.ok(Math.abs(normal.flow.angle[i]! - (expectedAngle % (2 * Math.PI))) < 1e-9, 'direction');
      assert.ok(Math.abs(normal.flow.slope[i]! - 0.1) < 1e-12, 'gradient');
      const upslopeLength = ((r + 1) * g.dy) / Math.cos(th);
      const tolerance = thetaDeg <= 45 ? 1e-9 : 0.15;
      assert.ok(Math.abs(normal.specificArea[i]! / upslopeLength - 1) < tolerance, `flowNormal a ${normal.specificArea[i]} vs ${upslopeLength}`);
      // Cell contour width: a equals the north–south extent of the upslope strip.
      if (thetaDeg <= 45) assert.ok(Math.abs(cellWidth.specificArea[i]! - (r + 1) * g.dy) < 1e-9, 'cell-width a');
    }
  });
}

/** Cone z = ±k·ρ on a 201×201 grid of 2 m cells, centre (100, 100). */
function cone(kind: 'divergent' | 'convergent') {
  const n = 201;
  const d = 2;
  const g = grid(n, n, d, d);
  const outer = 95 * d;
  const z = dem(g, (r, c) => {
    const rho = Math.hypot(r - 100, c - 100) * d;
    if (kind === 'divergent') return 500 - 0.3 * rho;
    return rho > outer || rho < 2 * d ? NaN : 500 + 0.3 * rho; // funnel into a nodata hole, circular domain
  });
  return { g, z, d, outer };
}

/**
 * Cones: on a peak draining outwards the sector beyond ρ is empty, the sector inside holds ½ρ²·dφ on a contour
 * of ρ·dφ, so a = ρ/2; on a funnel draining into its centre, a = (R² − ρ²)/(2ρ). Per-cell D-inf errors are
 * ±5–15 % (grid discretisation of a curved surface); the mean over an annulus is unbiased with flow-normal
 * contour widths and E[cos r] − 1 ≈ −10 % with the cell side as contour width (r uniform in [0, π/4]).
 */
for (const kind of ['divergent', 'convergent'] as const) {
  test(`${kind} cone: specific catchment area matches the analytic answer on average`, () => {
    const { g, z, d, outer } = cone(kind);
    for (const mode of ['flowNormal', 'cell'] as const) {
      const { specificArea, area, flow, filled } = route(z, g, mode);
      let changed = 0;
      for (let i = 0; i < z.length; i++) if (!Number.isNaN(z[i]!) && filled[i] !== z[i]) changed++;
      assert.equal(changed, 0, 'cone has no depression (the funnel drains into its nodata hole)');
      let sum = 0;
      let count = 0;
      const errors: number[] = [];
      for (let r = 0; r < g.height; r++) {
        for (let c = 0; c < g.width; c++) {
          const rho = Math.hypot(r - 100, c - 100) * d;
          if (rho < 40 || rho > 160) continue;
          const expected = kind === 'divergent' ? rho / 2 : (outer * outer - rho * rho) / (2 * rho);
          const e = specificArea[r * g.width + c]! / expected - 1;
          sum += e;
          count++;
          errors.push(Math.abs(e));
        }
      }
      errors.sort((a, b) => a - b);
      const mean = sum / count;
      const median = errors[errors.length >> 1]!;
      if (mode === 'flowNormal') {
        assert.ok(Math.abs(mean) < 0.015, `${mode} mean error ${mean}`);
        assert.ok(median < 0.1, `${mode} median |error| ${median}`);
      } else {
        assert.ok(mean > -0.13 && mean < -0.07, `${mode} mean error ${mean}`);
      }
      assertMassConserved(z, g, area, flow.receiverA);
    }
  });
}

test('V-shaped valley: the channel collects its side slopes, the outlet collects everything', () => {
  const g = grid(41, 60, 5, 5);
  const mid = 20;
  const z = dem(g, (r, c) => 1000 + 0.5 * Math.abs(c - mid) * 5 - 0.05 * r * 5);
  const { area, flow } = route(z, g);
  const cell = 25;
  let previous = 0;
  for (let r = 0; r < g.height; r++) {
    const a = area[r * g.width + mid]!;
    assert.ok(a >= previous, 'channel area grows downstream');
    previous = a;
    // side-slope water enters the channel: more than the channel's own strip
    if (r > 3) assert.ok(a > (r + 1) * cell * 10, `row ${r}: ${a / cell} cells`);
  }
  const outlet = (g.height - 1) * g.width + mid;
  assert.ok(Math.abs(area[outlet]! - g.width * g.height * cell) < 1e-6, 'outlet drains the whole valley');
  for (let r = 0; r < g.height - 1; r++) {
    for (const c of [5, 35]) {
      const angle = flow.angle[r * g.width + c]!;
      // side cells flow towards the channel and down-valley
      if (c < mid) assert.ok(angle > 1.5 * Math.PI && angle < 2 * Math.PI);
      else assert.ok(angle > Math.PI && angle < 1.5 * Math.PI);
    }
  }
  assertMassConserved(z, g, area, flow.receiverA);
});

test('DEM with a pit: filled to the spill elevation, then drains', () => {
  const g = grid(21, 21, 10, 10);
  // a plane falling to the east with a 3 m deep, 5×5 pit in the middle
  const z = dem(g, (r, c) => 100 - 0.5 * c - (Math.abs(r - 10) <= 2 && Math.abs(c - 10) <= 2 ? 3 : 0));
  const plain = fillDepressions(z, g, { increment: 0 });
  const spill = 100 - 0.5 * 13; // lowest rim cell on the downslope (east) side: column 13
  for (let r = 8; r <= 12; r++) for (let c = 8; c <= 12; c++) assert.equal(plain[r * 21 + c], spill, `plain fill (${r},${c})`);
  const filled = fillDepressions(z, g);
  for (let i = 0; i < z.length; i++) assert.ok(filled[i]! >= z[i]!, 'filling never lowers');
  for (let r = 8; r <= 12; r++) for (let c = 8; c <= 12; c++) {
    const v = filled[r * 21 + c]!;
    assert.ok(v > spill && v - spill < 1e-9, 'minimal rise above the spill level');
  }
  const flow = flowDirectionsDinf(filled, g);
  for (let r = 1; r < 20; r++) for (let c = 1; c < 20; c++) {
    assert.ok(flow.receiverA[r * 21 + c]! >= 0, `interior cell (${r},${c}) drains`);
    assert.ok(flow.slope[r * 21 + c]! > 0);
  }
  const { area } = specificCatchmentArea(flow, g);
  assertMassConserved(z, g, area, flow.receiverA);
  // the pit spills eastwards: every column boundary is crossed by all the water from the west, pit included
  for (const c of [7, 13, 16]) {
    let crossing = 0;
    for (let r = 0; r < 21; r++) crossing += area[r * 21 + c]!;
    assert.ok(Math.abs(crossing - 21 * (c + 1) * 100) < 1e-6, `column ${c}: ${crossing}`);
  }
});

test('flats: a perfectly flat DEM and a flat terrace drain without NaN', () => {
  const g = grid(25, 20, 10, 10);
  const flat = new Float64Array(25 * 20).fill(321);
  const a = route(flat, g);
  for (let i = 0; i < flat.length; i++) {
    assert.ok(Number.isFinite(a.specificArea[i]!) && a.specificArea[i]! >= 10);
    assert.ok(a.filled[i]! >= 321 && a.filled[i]! - 321 < 1e-9);
  }
  assertMassConserved(flat, g, a.area, a.flow.receiverA);
  // terrace: slope, flat band, slope
  const z = dem(g, (r) => (r < 6 ? 200 - r : r < 14 ? 194 : 194 - (r - 13)));
  const t = route(z, g);
  for (let r = 1; r < 19; r++) for (let c = 1; c < 24; c++) assert.ok(t.flow.receiverA[r * 25 + c]! >= 0, 'terrace cell drains');
  assertMassConserved(z, g, t.area, t.flow.receiverA);
  // plain fill keeps flats exactly flat: they become local outlets, but nothing is NaN
  const plain = flowDirectionsDinf(fillDepressions(z, g, { increment: 0 }), g);
  assert.ok(plain.angle.every((v) => Number.isFinite(v)));
});

test('NaN holes: nodata stays NaN, cells next to holes drain into them, mass is conserved', () => {
  const g = grid(60, 50, 10, 10);
  const z = dem(g, (r, c) => 800 + 3 * Math.sin(r / 5) * Math.cos(c / 7) + 0.2 * r + 0.1 * c);
  for (let r = 20; r < 26; r++) for (let c = 30; c < 34; c++) z[r * 60 + c] = NaN;
  for (let c = 0; c < 60; c++) z[c] = NaN; // a nodata first row
  z[45 * 60 + 10] = NaN; // a single nodata cell
  const { filled, flow, area, specificArea } = route(z, g);
  for (let i = 0; i < z.length; i++) {
    if (Number.isNaN(z[i]!)) {
      assert.ok(Number.isNaN(filled[i]!) && Number.isNaN(flow.angle[i]!) && Number.isNaN(specificArea[i]!));
    } else {
      assert.ok(Number.isFinite(specificArea[i]!));
      for (const rec of [flow.receiverA[i]!, flow.receiverB[i]!]) if (rec >= 0) assert.ok(!Number.isNaN(z[rec]!), 'never flows into nodata');
    }
  }
  assertMassConserved(z, g, area, flow.receiverA);
});

test('per-row dx (geographic grid): constant rows equal the scalar dx; mass is conserved', () => {
  const z = dem(grid(30, 30), (r, c) => 500 + 5 * Math.sin(r / 4) + 3 * Math.cos(c / 5) - 0.3 * r);
  const scalar = route(z, grid(30, 30, 9, 11));
  const perRow = route(z, grid(30, 30, new Float64Array(30).fill(9), 11));
  assert.deepEqual(perRow.specificArea, scalar.specificArea);
  const shrinking = Float64Array.from({ length: 30 }, (_, r) => 9 * Math.cos(((40 + r * 0.01) * Math.PI) / 180));
  const g = grid(30, 30, shrinking, 11);
  const geo = route(z, g);
  assertMassConserved(z, g, geo.area, geo.flow.receiverA);
});
