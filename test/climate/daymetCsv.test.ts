import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDaymetCsv, daymetCsvForYear, DaymetCsvFormatError } from '../../src/climate/daymetCsv.js';
import { aggregateDaymetYearToMonthly } from '../../src/science/climate/monthlyAggregation.js';
import { syntheticDaymetCsv, syntheticDaymetYear } from '../helpers/syntheticDaymet.js';

const CELL = { x: -576250, y: -687000, lat: 35.8143 };
const SOURCE = 'point 35.81N 106.64W';

function csv(years: number[], vars: string[] | null = ['tmax', 'tmin', 'prcp', 'vp']): string {
  return syntheticDaymetCsv({ latText: '35.814302', lonText: '-106.638750', queryX: -576249.96, queryY: -686999.99, cell: CELL, years, vars });
}

/** Replaces the text of one field of the first data row of `year` with yday `yday`. */
function editRow(text: string, year: number, yday: number, column: string, value: string): string {
  const lines = text.split('\n');
  const header = lines.find((l) => l.startsWith('year,yday'))!.split(',').map((c) => c.split(' (')[0]);
  const col = header.indexOf(column);
  const i = lines.findIndex((l) => l.startsWith(`${year},${yday},`));
  const cells = lines[i]!.split(',');
  cells[col] = value;
  lines[i] = cells.join(',');
  return lines.join('\n');
}

test('parses the V4 single-pixel format: preamble, columns by name, units, 365 rows per year', () => {
  const parsed = parseDaymetCsv(csv([2018, 2019]), { source: SOURCE, expectedYears: [2018, 2019] });
  assert.equal(parsed.preamble.elevationM, 2517);
  assert.equal(parsed.preamble.latitudeDeg, 35.814302);
  assert.equal(parsed.preamble.longitudeDeg, -106.63875);
  assert.equal(parsed.preamble.lccXM, -576249.96);
  assert.equal(parsed.preamble.lccYM, -686999.99);
  assert.ok(parsed.preamble.tile! > 0);
  assert.match(parsed.preamble.versionLine!, /Version 4/);
  assert.match(parsed.preamble.citation!, /^How to cite/);
  // Daymet writes the requested variables in its own order (prcp before tmax), not the request's.
  assert.deepEqual(parsed.columns, ['year', 'yday', 'prcp', 'tmax', 'tmin', 'vp']);
  assert.deepEqual(parsed.units, { prcp: 'mm/day', tmax: 'deg c', tmin: 'deg c', vp: 'Pa' });
  assert.deepEqual(parsed.years, [2018, 2019]);
  const expected = syntheticDaymetYear(CELL, 2019);
  const got = parsed.daily.get(2019)!;
  for (const v of ['tmax', 'tmin', 'prcp', 'vp'] as const) {
    assert.equal(got[v].length, 365);
    assert.deepEqual([...got[v]], [...expected[v]]);
  }
});

test('a leap year has 365 rows (31 December dropped) and parses; a 366th row is refused', () => {
  const text = csv([2020]);
  const parsed = parseDaymetCsv(text, { source: SOURCE, expectedYears: [2020] });
  assert.equal(parsed.daily.get(2020)!.tmax.length, 365);
  const extra = text.trimEnd() + '\n2020,366,0.00,1.00,-5.00,300.00\n';
  assert.throws(() => parseDaymetCsv(extra, { source: SOURCE }), /yday "366" is not a day of the 365-day Daymet year/);
});

test('unknown variable → all variables: the extra columns are ignored, values still found by name', () => {
  const all = csv([2018], ['tmax', 'tmean']);
  const parsed = parseDaymetCsv(all, { source: SOURCE });
  assert.deepEqual(parsed.columns, ['year', 'yday', 'dayl', 'prcp', 'srad', 'swe', 'tmax', 'tmin', 'vp']);
  const expected = syntheticDaymetYear(CELL, 2018);
  assert.deepEqual([...parsed.daily.get(2018)!.vp], [...expected.vp]);
  assert.deepEqual([...parsed.daily.get(2018)!.prcp], [...expected.prcp]);
});

test('liberal: V3 style (blank line before the header, "2018.0" numbers), CRLF, reordered columns, no units', () => {
  const rows = Array.from({ length: 365 }, (_, d) => `${(d + 1).toFixed(1)},2018.0,${(d % 7).toFixed(1)},-3.5,2.0,350.0`);
  const text = [
    'Latitude: 35.8  Longitude: -106.6',
    'X & Y on Lambert Conformal Conic: -576338.21 -688466.68',
    'Tile: 11013',
    'Elevation: 2496 meters',
    'All years; all variables; Daymet Software Version 3.0; Daymet Data Version 3.0.',
    'How to cite: Thornton; P.E.; et al. 2016.',
    '',
    'yday,year,vp,tmin (deg c),tmax,prcp (mm/day)',
    ...rows,
  ].join('\r\n');
  const parsed = parseDaymetCsv(text, { source: SOURCE, expectedYears: [2018] });
  const s = parsed.daily.get(2018)!;
  assert.equal(parsed.preamble.elevationM, 2496);
  assert.equal(s.vp[9], 2); // yday 10 is row index 9: 9 % 7 = 2 in the "vp" column
  assert.equal(s.tmin[0], -3.5);
  assert.equal(s.tmax[0], 2);
  assert.equal(s.prcp[0], 350);
});

test('missing values (−9999) are kept and handled by the monthly aggregation', () => {
  let text = csv([2018]);
  for (let d = 1; d <= 3; d++) text = editRow(text, 2018, d, 'tmax', '-9999.00');
  const parsed = parseDaymetCsv(text, { source: SOURCE });
  const s = parsed.daily.get(2018)!;
  assert.equal(s.tmax[0], -9999);
  const monthly = aggregateDaymetYearToMonthly(s);
  const expected = syntheticDaymetYear(CELL, 2018).tmax.slice(3, 31);
  assert.ok(Math.abs(monthly.tmax[0]! - expected.reduce((a, b) => a + b, 0) / 28) < 1e-9);
});

test('strict: a clear error naming the point and the problem', () => {
  const good = csv([2018]);
  const cases: Array<[string, string, RegExp]> = [
    ['missing column', good.replace('vp (Pa)', 'swe (kg/m^2)'), /required column "vp" missing \(the header has year, yday, prcp, tmax, tmin, swe\)/],
    ['non-numeric', editRow(good, 2018, 45, 'tmin', 'abc'), /\(year 2018, yday 45\): tmin value "abc" is not a number/],
    ['empty value', editRow(good, 2018, 46, 'prcp', ''), /\(year 2018, yday 46\): prcp value "" is not a number/],
    ['no elevation', good.replace(/^Elevation:.*\n/m, ''), /no "Elevation: N meters" line/],
    ['bad elevation', good.replace(/^Elevation:.*$/m, 'Elevation: unknown'), /elevation line "Elevation: unknown" has no number/],
    ['short row', good.replace(/\n2018,100,[^\n]*/, '\n2018,100,1.0'), /has 3 fields but the header has 6 columns/],
    ['missing day', good.replace(/\n2018,200,[^\n]*/, ''), /year 2018 has 364 daily rows instead of 365 \(yday 200 is missing\)/],
    ['duplicate day', good.replace(/\n(2018,200,[^\n]*)/, '\n$1\n$1'), /year 2018 has a second row for yday 200/],
    ['html page', '<html><body>Service Unavailable</body></html>', /no "year,yday,…" column header found \(the text starts with "<html>/],
    ['header only', good.split('\n').slice(0, 7).join('\n'), /header but no data rows/],
    ['fractional year', good.replace(/\n2018,5,/, '\n2018.5,5,'), /year "2018.5" is not a whole number/],
  ];
  for (const [name, text, message] of cases) {
    assert.throws(
      () => parseDaymetCsv(text, { source: SOURCE }),
      (err: unknown) => {
        assert.ok(err instanceof DaymetCsvFormatError, name);
        assert.ok(err.message.startsWith(`Daymet data for ${SOURCE} is not valid: `), `${name}: ${err.message}`);
        assert.match(err.message, message, name);
        return true;
      },
    );
  }
  assert.throws(() => parseDaymetCsv(good, { source: SOURCE, expectedYears: [2018, 2019] }), /no rows for year 2019/);
});

test('daymetCsvForYear gives what the API returns for that single year', () => {
  const parsed = parseDaymetCsv(csv([2018, 2019]), { source: SOURCE });
  assert.equal(daymetCsvForYear(parsed, 2019), csv([2019]));
  assert.throws(() => daymetCsvForYear(parsed, 2017), RangeError);
});

test('srad and dayl are read when the CSV has them, held to the same rules; a CSV without them still parses', () => {
  const withRadiation = parseDaymetCsv(csv([2019], ['tmax', 'tmin', 'prcp', 'vp', 'srad', 'dayl']), { source: SOURCE, expectedYears: [2019] });
  assert.deepEqual(withRadiation.columns, ['year', 'yday', 'dayl', 'prcp', 'srad', 'tmax', 'tmin', 'vp']);
  assert.equal(withRadiation.units['srad'], 'W/m^2');
  const expected = syntheticDaymetYear(CELL, 2019);
  assert.deepEqual([...withRadiation.daily.get(2019)!.srad!], [...expected.srad]);
  assert.deepEqual([...withRadiation.daily.get(2019)!.dayl!], [...expected.dayl]);
  const without = parseDaymetCsv(csv([2019]), { source: SOURCE });
  assert.equal(without.daily.get(2019)!.srad, undefined);
  assert.equal(without.daily.get(2019)!.dayl, undefined);
  assert.throws(
    () => parseDaymetCsv(editRow(csv([2019], null), 2019, 40, 'srad', 'n/a'), { source: SOURCE }),
    (error: unknown) => error instanceof DaymetCsvFormatError && /yday 40\): srad value "n\/a" is not a number/.test(error.message),
  );
});
