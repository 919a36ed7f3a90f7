/**
 * A local stand-in for the Daymet single-pixel API (node:http on 127.0.0.1, random port), serving
 * SYNTHETIC data in Daymet's CSV format (test/helpers/syntheticDaymet.ts). It snaps each query to its
 * Daymet cell with its own copy of the grid constants, so the client's grid code is checked
 * independently. Behaviours for tests: plain success; HTTP 500 (or another status) for the first N
 * requests of each point; hanging (never answering); 400 for points outside North America; a request log.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import proj4 from 'proj4';
import { syntheticDaymetCsv } from './syntheticDaymet.js';

const LCC = '+proj=lcc +lat_1=25 +lat_2=60 +lat_0=42.5 +lon_0=-100 +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs';
const toLcc = proj4('+proj=longlat +datum=WGS84 +no_defs', LCC);
// Daymet V4 NA cell centres: x = -4560250 + 1000 i, y = 4984000 - 1000 j.
const X0 = -4560250, Y0 = 4984000;

export interface DaymetServerBehaviour {
  /** Answer the first N requests of every point (keyed by the lat/lon text) with `failStatus`. */
  failFirst: number;
  failStatus: number;
  /** Never answer (the socket stays open until the server closes). */
  hang: boolean;
  /** Delay before answering [ms]. */
  delayMs: number;
}

export interface LoggedRequest {
  readonly lat: string;
  readonly lon: string;
  readonly vars: string | null;
  readonly years: string | null;
  readonly status: number | 'hang';
}

export interface DaymetTestServer {
  /** Base URL to pass as `baseUrl` (or EEMT_DAYMET_URL), e.g. http://127.0.0.1:34567. */
  readonly url: string;
  /** Mutable behaviour; change between requests as needed. */
  readonly behaviour: DaymetServerBehaviour;
  /** Every request received, in order. */
  readonly requests: LoggedRequest[];
  /** Largest number of requests that were open at the same time. */
  readonly maxInFlight: () => number;
  close(): Promise<void>;
}

function insideNorthAmerica(lat: number, lon: number): boolean {
  return lat >= 14 && lat <= 83 && lon >= -179 && lon <= -52;
}

export async function startDaymetServer(behaviour: Partial<DaymetServerBehaviour> = {}): Promise<DaymetTestServer> {
  const state: DaymetServerBehaviour = { failFirst: 0, failStatus: 500, hang: false, delayMs: 0, ...behaviour };
  const requests: LoggedRequest[] = [];
  const perPoint = new Map<string, number>();

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const latText = url.searchParams.get('lat');
    const lonText = url.searchParams.get('lon');
    const vars = url.searchParams.get('vars');
    const years = url.searchParams.get('years');
    const log = (status: number | 'hang') => requests.push({ lat: latText ?? '', lon: lonText ?? '', vars, years, status });
    const send = (status: number, body: string, type = 'text/plain') => {
      log(status);
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (url.pathname !== '/single-pixel/api/data') return send(404, 'Not Found');
    if (state.hang) return log('hang');
    const lat = Number(latText), lon = Number(lonText);
    if (latText === null || lonText === null || !Number.isFinite(lat) || !Number.isFinite(lon)) {
      return send(400, 'lat and lon are required');
    }
    const key = `${latText},${lonText}`;
    const n = (perPoint.get(key) ?? 0) + 1;
    perPoint.set(key, n);
    if (n <= state.failFirst) return send(state.failStatus, 'Internal Server Error');
    if (!insideNorthAmerica(lat, lon)) return send(400, 'Daymet Tile was not found with input lat and lon');
    const [qx, qy] = toLcc.forward([lon, lat]) as [number, number];
    const cx = X0 + Math.round((qx - X0) / 1000) * 1000;
    const cy = Y0 - Math.round((Y0 - qy) / 1000) * 1000;
    const [, cellLat] = toLcc.inverse([cx, cy]) as [number, number];
    const yearList = (years ?? '2020').split(',').map(Number).filter(Number.isInteger);
    const body = syntheticDaymetCsv({
      latText,
      lonText,
      queryX: qx,
      queryY: qy,
      cell: { x: cx, y: cy, lat: cellLat },
      years: yearList,
      vars: vars ? vars.split(',') : null,
    });
    send(200, body, 'text/csv');
  };

  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    if (state.delayMs > 0) setTimeout(() => handle(req, res), state.delayMs);
    else handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    behaviour: state,
    requests,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
