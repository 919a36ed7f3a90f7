import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, mkdir, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchDaymetPoint, fetchDaymetPoints, daymetRequestUrl, type DaymetDownloadProgress } from '../../src/climate/daymetClient.js';
import { daymetCacheFilePath } from '../../src/climate/daymetCache.js';
import { daymetCellContaining } from '../../src/climate/daymetGrid.js';
import { ClimateDownloadError } from '../../src/climate/errors.js';
import { startDaymetServer } from '../helpers/daymetServer.js';
import { syntheticDaymetYear, syntheticDaymetCsv } from '../helpers/syntheticDaymet.js';

const POINT = { lat: 35.8057, lon: -106.6263 }; // inside Daymet cell -575250_-688000
const CELL = daymetCellContaining(POINT.lon, POINT.lat);
const FAST = { retryDelayMs: 5, timeoutMs: 2000 } as const;

const tempDirs: string[] = [];
async function tempCache(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eemt-daymet-'));
  tempDirs.push(dir);
  return dir;
}
after(async () => {
  await Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true })));
});

function isDownloadError(pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof ClimateDownloadError, String(err));
    assert.ok(err.message.startsWith('Climate download failed: '), err.message);
    assert.match(err.message, pattern);
    return true;
  };
}

test('request URL: the cell centre, the four EEMT variables and the observed radiation (srad, dayl), the years', () => {
  assert.equal(
    daymetRequestUrl('https://daymet.ornl.gov', { lat: 35.8057, lon: -106.6263 }, [2018, 2019]),
    'https://daymet.ornl.gov/single-pixel/api/data?lat=35.805700&lon=-106.626300&vars=tmax,tmin,prcp,vp,srad,dayl&years=2018,2019',
  );
});

test('fetches a point: series, cell elevation, per-year CSV, cached atomically under daymet/v4/<x>_<y>/<year>.csv', async () => {
  const server = await startDaymetServer();
  try {
    const cacheDir = await tempCache();
    const data = await fetchDaymetPoint(POINT, [2019, 2018, 2019], { baseUrl: server.url, cacheDir, ...FAST });
    assert.equal(server.requests.length, 1);
    const req = server.requests[0]!;
    assert.equal(req.vars, 'tmax,tmin,prcp,vp,srad,dayl');
    assert.equal(req.years, '2018,2019');
    assert.equal(Number(req.lat), Number(CELL.lat.toFixed(6))); // snapped to the cell centre
    assert.equal(data.cell.x, -575250);
    assert.equal(data.cell.y, -688000);
    assert.deepEqual(data.years, [2018, 2019]);
    assert.deepEqual(data.downloadedYears, [2018, 2019]);
    assert.ok(data.elevationM > 2300 && data.elevationM < 2700);
    const expected = syntheticDaymetYear(CELL, 2018);
    assert.deepEqual([...data.daily.get(2018)!.tmin], [...expected.tmin]);
    assert.deepEqual([...data.daily.get(2018)!.prcp], [...expected.prcp]);
    assert.deepEqual([...data.daily.get(2018)!.srad!], [...expected.srad]);
    assert.deepEqual([...data.daily.get(2018)!.dayl!], [...expected.dayl]);
    // the CSV as the API writes these variables: its columns in Daymet's order
    assert.match(data.csvByYear.get(2018)!, /\nyear,yday,dayl \(s\),prcp \(mm\/day\),srad \(W\/m\^2\),tmax \(deg c\),tmin \(deg c\),vp \(Pa\)\n/);

    const path = daymetCacheFilePath(cacheDir, CELL, 2019);
    assert.equal(path, join(cacheDir, 'daymet', 'v4', '-575250_-688000', '2019.csv'));
    const cached = await readFile(path, 'utf8');
    assert.equal(cached, data.csvByYear.get(2019));
    assert.match(cached, /^Latitude: [\d.]+ {2}Longitude: -[\d.]+\nX & Y on Lambert Conformal Conic: /);
    assert.equal(cached.trimEnd().split('\n').filter((l) => l.startsWith('2019,')).length, 365);
    // No temporary files left behind.
    assert.deepEqual(await readdir(join(cacheDir, 'daymet', 'v4', '-575250_-688000')), ['2018.csv', '2019.csv']);
  } finally {
    await server.close();
  }
});

test('cache: a second fetch makes no request; a wider year range requests only the missing years', async () => {
  const server = await startDaymetServer();
  try {
    const cacheDir = await tempCache();
    const opts = { baseUrl: server.url, cacheDir, ...FAST };
    const first = await fetchDaymetPoint(POINT, [2018], opts);
    // Another point in the same cell shares the entry.
    const second = await fetchDaymetPoint({ lat: POINT.lat + 0.001, lon: POINT.lon - 0.001 }, [2018], opts);
    assert.equal(server.requests.length, 1);
    assert.deepEqual(second.downloadedYears, []);
    assert.deepEqual([...second.daily.get(2018)!.vp], [...first.daily.get(2018)!.vp]);
    const third = await fetchDaymetPoint(POINT, [2017, 2018, 2019], opts);
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[1]!.years, '2017,2019');
    assert.deepEqual(third.downloadedYears, [2017, 2019]);
  } finally {
    await server.close();
  }
});

test('offline mirror: a pre-seeded file is used without any server; a missing one is a clear error', async () => {
  const cacheDir = await tempCache();
  const folder = join(cacheDir, 'daymet', 'v4', '-575250_-688000');
  await mkdir(folder, { recursive: true });
  // A file as the API returns it without vars= (all seven columns).
  const text = syntheticDaymetCsv({ latText: '35.8057', lonText: '-106.6263', queryX: -575280.1, queryY: -688012.3, cell: CELL, years: [2015], vars: null });
  await writeFile(join(folder, '2015.csv'), text);
  const data = await fetchDaymetPoint(POINT, [2015], { baseUrl: 'http://127.0.0.1:9', cacheDir, offline: true });
  assert.deepEqual([...data.daily.get(2015)!.tmax], [...syntheticDaymetYear(CELL, 2015).tmax]);
  await assert.rejects(
    fetchDaymetPoint(POINT, [2015, 2016], { cacheDir, offline: true }),
    isDownloadError(/no cached Daymet data for point 35\.81N 106\.63W \(cell -575250_-688000\), year 2016 in .* and downloads are switched off/),
  );
  // A broken cached file names itself.
  await writeFile(join(folder, '2014.csv'), text.replace(/^Elevation:.*\n/m, ''));
  await assert.rejects(
    fetchDaymetPoint(POINT, [2014], { cacheDir, offline: true }),
    isDownloadError(/the cached file .*2014\.csv is not usable: the preamble has no "Elevation: N meters" line.*Delete it/),
  );
});

test('a cached year without srad and dayl is downloaded again, unless downloads are switched off', async () => {
  const cacheDir = await tempCache();
  const folder = join(cacheDir, 'daymet', 'v4', '-575250_-688000');
  await mkdir(folder, { recursive: true });
  // as cached before the observed radiation was requested
  const fourVariables = syntheticDaymetCsv({ latText: '35.8057', lonText: '-106.6263', queryX: -575280.1, queryY: -688012.3, cell: CELL, years: [2016], vars: ['tmax', 'tmin', 'prcp', 'vp'] });
  await writeFile(join(folder, '2016.csv'), fourVariables);
  // offline: used as it is, without the radiation
  const offline = await fetchDaymetPoint(POINT, [2016], { cacheDir, offline: true });
  assert.equal(offline.daily.get(2016)!.srad, undefined);
  assert.deepEqual(offline.downloadedYears, []);
  const server = await startDaymetServer();
  try {
    const online = await fetchDaymetPoint(POINT, [2016], { baseUrl: server.url, cacheDir, ...FAST });
    assert.deepEqual(online.downloadedYears, [2016]);
    assert.equal(server.requests.length, 1);
    assert.deepEqual([...online.daily.get(2016)!.srad!], [...syntheticDaymetYear(CELL, 2016).srad]);
    // the cache now holds them: no further request
    await fetchDaymetPoint(POINT, [2016], { baseUrl: server.url, cacheDir, ...FAST });
    assert.equal(server.requests.length, 1);
    assert.match(await readFile(join(folder, '2016.csv'), 'utf8'), /srad \(W\/m\^2\)/);
  } finally {
    await server.close();
  }
});

test('retries on HTTP 5xx with backoff, then succeeds', async () => {
  const server = await startDaymetServer({ failFirst: 2, failStatus: 503 });
  try {
    const retries: string[] = [];
    const data = await fetchDaymetPoint(POINT, [2018], {
      baseUrl: server.url,
      ...FAST,
      onProgress: (p) => { if (/retrying/.test(p.message)) retries.push(p.message); },
    });
    assert.equal(data.daily.get(2018)!.tmax.length, 365);
    assert.deepEqual(server.requests.map((r) => r.status), [503, 503, 200]);
    assert.equal(retries.length, 2);
    assert.match(retries[0]!, /answered HTTP 503 .*retrying in/);
  } finally {
    await server.close();
  }
});

test('gives up after the attempts with the last status', async () => {
  const server = await startDaymetServer({ failFirst: 10 });
  try {
    await assert.rejects(
      fetchDaymetPoint(POINT, [2018], { baseUrl: server.url, ...FAST, attempts: 3 }),
      isDownloadError(/^Climate download failed: 127\.0\.0\.1:\d+ answered HTTP 500 Internal Server Error \(3 attempts\) for point 35\.81N 106\.63W\. A cache pre-seeded with `eemt climate prefetch` \(EEMT_CACHE_DIR; docs\/daymet-cache\.md\) avoids the download\.$/),
    );
    assert.equal(server.requests.length, 3);
  } finally {
    await server.close();
  }
});

test('timeout: a server that never answers → ClimateDownloadError after the attempts', async () => {
  const server = await startDaymetServer({ hang: true });
  try {
    const t0 = performance.now();
    await assert.rejects(
      fetchDaymetPoint(POINT, [2018], { baseUrl: server.url, timeoutMs: 150, attempts: 2, retryDelayMs: 5 }),
      isDownloadError(/^Climate download failed: 127\.0\.0\.1:\d+ did not answer within 0\.15 s \(2 attempts\) for point 35\.81N 106\.63W\. A cache pre-seeded with `eemt climate prefetch` \(EEMT_CACHE_DIR; docs\/daymet-cache\.md\) avoids the download\.$/),
    );
    assert.ok(performance.now() - t0 < 2000);
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});

test('HTTP 400 for a point outside North America is not retried', async () => {
  const server = await startDaymetServer();
  try {
    // Greenland: inside the LCC grid rectangle but outside Daymet's land domain.
    await assert.rejects(
      fetchDaymetPoint({ lat: 70, lon: -40 }, [2018], { baseUrl: server.url, ...FAST }),
      (err: unknown) => {
        isDownloadError(/refused the request for point 70\.0\dN (39\.9\d|40\.0\d)W with HTTP 400: Daymet Tile was not found with input lat and lon \(Daymet answers 400 for points outside its North American coverage\)/)(err);
        assert.equal((err as ClimateDownloadError).status, 400);
        return true;
      },
    );
    assert.equal(server.requests.length, 1);
    // Far outside the grid: refused before any request.
    await assert.rejects(fetchDaymetPoint({ lat: 48.85, lon: 2.35 }, [2018], { baseUrl: server.url }), isDownloadError(/outside the Daymet North America grid/));
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

test('network error: nothing listening → "could not be reached" after the attempts', async () => {
  const server = await startDaymetServer();
  const url = server.url;
  await server.close();
  await assert.rejects(
    fetchDaymetPoint(POINT, [2018], { baseUrl: url, ...FAST, attempts: 2 }),
    isDownloadError(/127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED; 2 attempts\) for point 35\.81N 106\.63W/),
  );
});

test('answers that are not usable: not CSV, or for another location', async () => {
  const respond = (body: string) => (async () => new Response(body, { status: 200 })) as typeof fetch;
  await assert.rejects(
    fetchDaymetPoint(POINT, [2018], { baseUrl: 'https://daymet.example', fetch: respond('<html>maintenance</html>') }),
    isDownloadError(/^Climate download failed: the answer of daymet\.example for point 35\.81N 106\.63W is not usable: no "year,yday,…" column header/),
  );
  const elsewhere = syntheticDaymetCsv({ latText: '35.9', lonText: '-106.6', queryX: -573000, queryY: -679000, cell: CELL, years: [2018], vars: ['tmax', 'tmin', 'prcp', 'vp'] });
  await assert.rejects(
    fetchDaymetPoint(POINT, [2018], { baseUrl: 'https://daymet.example', fetch: respond(elsewhere) }),
    isDownloadError(/is for Lambert Conformal Conic position \(-573000, -679000\), outside the requested Daymet cell centred at \(-575250, -688000\)/),
  );
  const missingYear = syntheticDaymetCsv({ latText: '35.8', lonText: '-106.6', queryX: -575250, queryY: -688000, cell: CELL, years: [2018], vars: null });
  await assert.rejects(
    fetchDaymetPoint(POINT, [2018, 2019], { baseUrl: 'https://daymet.example', fetch: respond(missingYear) }),
    isDownloadError(/no rows for year 2019 .*may not have published it yet/),
  );
});

test('EEMT_DAYMET_URL is used when no baseUrl is given', async () => {
  const server = await startDaymetServer();
  const saved = process.env['EEMT_DAYMET_URL'];
  process.env['EEMT_DAYMET_URL'] = server.url + '/';
  try {
    await fetchDaymetPoint(POINT, [2018]);
    assert.equal(server.requests.length, 1);
  } finally {
    if (saved === undefined) delete process.env['EEMT_DAYMET_URL'];
    else process.env['EEMT_DAYMET_URL'] = saved;
    await server.close();
  }
});

test('many points: bounded concurrency, progress reports, results in input order', async () => {
  const server = await startDaymetServer({ delayMs: 30 });
  try {
    const points = Array.from({ length: 8 }, (_, i) => ({ lat: 35.80 + 0.01 * (i % 4), lon: -106.63 + 0.012 * Math.floor(i / 4) }));
    const reports: DaymetDownloadProgress[] = [];
    const data = await fetchDaymetPoints(points, [2018], { baseUrl: server.url, concurrency: 3, ...FAST, onProgress: (p) => reports.push(p) });
    assert.equal(server.maxInFlight(), 3);
    assert.equal(server.requests.length, 8);
    data.forEach((d, i) => assert.equal(d.cell.col, daymetCellContaining(points[i]!.lon, points[i]!.lat).col));
    const last = reports.at(-1)!;
    assert.equal(last.pointsDone, 8);
    assert.equal(last.pointsTotal, 8);
    assert.ok(last.bytesReceived > 8 * 365 * 20);
    assert.ok(reports.some((r) => r.currentPoint !== null && /KiB received/.test(r.message)));
    assert.ok(reports.every((r, i) => i === 0 || r.pointsDone >= reports[i - 1]!.pointsDone));
  } finally {
    await server.close();
  }
});

test('abort: rejects with the signal reason and stops waiting on a hanging server', async () => {
  const server = await startDaymetServer({ hang: true });
  try {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const t0 = performance.now();
    await assert.rejects(
      fetchDaymetPoints([POINT, { lat: 35.9, lon: -106.5 }], [2018], { baseUrl: server.url, signal: controller.signal, timeoutMs: 10_000 }),
      (err: unknown) => (err as Error).name === 'AbortError',
    );
    assert.ok(performance.now() - t0 < 1000);
  } finally {
    await server.close();
  }
});
