// The results view of a completed job: the annual map (server-rendered preview PNG, with a hillshade toggle), a day
// picker that swaps in the daily maps, a chart of the 12 monthly means drawn here as SVG, and for eemt jobs the EEMT
// maps; every map with its legend (colour bar, minimum, maximum and unit). Previews come from
// GET /api/jobs/{id}/preview/{product}.png and their legends from …/{product}.json.
import { api, h, messageOf, setText, svg, type Job } from './common.js';

/** The legend of a preview (GET /api/jobs/{id}/preview/{product}.json). */
export interface PreviewLegend {
  product: string;
  title: string;
  unit: string;
  min: number;
  max: number;
  mean: number;
  width: number;
  height: number;
  stops: { value: number; color: string }[];
  png: string;
}

export const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;
const MONTH_LABELS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** The day the picker starts on: the June solstice. */
const DEFAULT_DAY = 172;

/** The maps of the map picker; `daily` ones take the day of the day picker; `item`: the `products` item that writes their files. */
const SOLAR_MAPS: { value: string; label: string; daily?: boolean; item: 'monthly' | 'daily' | 'hours' }[] = [
  { value: 'annual', label: 'Annual global irradiation', item: 'monthly' },
  { value: 'day', label: 'Daily global irradiation', daily: true, item: 'daily' },
  { value: 'hours-day', label: 'Daily sunshine hours', daily: true, item: 'hours' },
];

/**
 * Whether a job wrote the maps of `item`, and the first day of its daily maps, from the job's normalised `products`
 * (`monthly,daily:172,hours`; absent for jobs from before it was recorded: every product).
 */
export function productsItem(products: unknown, item: 'monthly' | 'daily' | 'hours'): { written: boolean; firstDay: number | null } {
  if (typeof products !== 'string') return { written: true, firstDay: null };
  const match = new RegExp(`(?:^|,)${item}(?::(\\d+))?(?:,|-|$)`).exec(products);
  return { written: match !== null, firstDay: match?.[1] === undefined ? null : Number(match[1]) };
}
const TERRAIN_MAPS = [
  { value: 'twi', label: 'Topographic wetness index' },
  { value: 'slope', label: 'Slope' },
];

export function previewPath(jobId: string, product: string, extension: 'png' | 'json', hillshade = false): string {
  return `/api/jobs/${encodeURIComponent(jobId)}/preview/${product}.${extension}${hillshade ? '?hillshade=1' : ''}`;
}

/** A unit as typed in metadata (`Wh m-2 day-1`) with superscript exponents (`Wh m⁻² day⁻¹`). */
export function prettyUnit(unit: string): string {
  const sup: Record<string, string> = { '-': '⁻', '0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹' };
  return unit.replace(/([A-Za-z])(-?\d+)\b/g, (_m, letter: string, power: string) => letter + [...power].map((c) => sup[c] ?? c).join(''));
}

/** A number for a label: about three significant digits, thousands grouped. */
export function formatValue(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** Day of year (1–365) as a date of a 365-day year: `21 Jun`. */
export function dayLabel(day: number): string {
  let rest = day;
  for (let m = 0; m < 12; m++) {
    if (rest <= MONTH_DAYS[m]!) return `${rest} ${MONTH_LABELS[m]}`;
    rest -= MONTH_DAYS[m]!;
  }
  return `day ${day}`;
}

/** Round tick values covering [0, max]: steps of 1, 2 or 5 × 10ⁿ, about five of them. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * power).find((s) => s >= raw) ?? 10 * power;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(Math.round(v / step) * step);
  return ticks;
}

let gradientCount = 0;

/** A colour bar with its minimum, middle and maximum and the unit. */
export function legendBar(legend: PreviewLegend): SVGSVGElement {
  const id = `legend-gradient-${++gradientCount}`;
  const span = legend.max - legend.min || 1;
  const stops = legend.stops.map((s) =>
    svg('stop', { offset: `${Math.max(0, Math.min(100, ((s.value - legend.min) / span) * 100)).toFixed(2)}%`, 'stop-color': s.color }),
  );
  const mid = (legend.min + legend.max) / 2;
  return svg(
    'svg',
    { class: 'legend', viewBox: '0 0 320 46', role: 'img', 'aria-label': `Colour scale from ${formatValue(legend.min)} to ${formatValue(legend.max)} ${legend.unit}` },
    svg('defs', {}, svg('linearGradient', { id, x1: 0, x2: 1, y1: 0, y2: 0 }, ...stops)),
    svg('rect', { x: 10, y: 4, width: 300, height: 14, fill: `url(#${id})`, stroke: '#8a948f', 'stroke-width': 0.5 }),
    ...[10, 160, 310].map((x) => svg('line', { x1: x, x2: x, y1: 18, y2: 22, stroke: '#56615c' })),
    svg('text', { x: 10, y: 33, 'text-anchor': 'start', class: 'legend-min' }, formatValue(legend.min)),
    svg('text', { x: 160, y: 33, 'text-anchor': 'middle' }, formatValue(mid)),
    svg('text', { x: 310, y: 33, 'text-anchor': 'end', class: 'legend-max' }, formatValue(legend.max)),
    svg('text', { x: 160, y: 45, 'text-anchor': 'middle', class: 'legend-unit' }, prettyUnit(legend.unit)),
  );
}

/** One map: the preview image (sized from its legend, so the layout does not jump) and its legend, or why there is none. */
class MapView {
  readonly element: HTMLElement;
  private readonly frame: HTMLDivElement;
  private readonly image: HTMLImageElement;
  private readonly caption: HTMLElement;
  private readonly legendSlot: HTMLDivElement;
  private readonly note: HTMLParagraphElement;
  private request = 0;

  constructor(
    private readonly jobId: string,
    className: string,
    alt: string,
    /** Longest side the map is shown at [CSS px]. */
    private readonly displaySize = 460,
  ) {
    this.image = h('img', { alt, decoding: 'async' });
    this.frame = h('div', { class: 'map-frame' }, this.image);
    this.caption = h('figcaption', { class: 'map-title' });
    this.legendSlot = h('div', { class: 'legend-slot' });
    this.note = h('p', { class: 'map-note', hidden: true });
    this.element = h('figure', { class: `map ${className}` }, this.caption, this.frame, this.note, this.legendSlot);
    this.image.addEventListener('error', () => {
      if (this.image.getAttribute('src')) this.unavailable('The map image could not be loaded.');
    });
    this.image.addEventListener('load', () => this.element.classList.remove('is-loading'));
  }

  private unavailable(reason: string): void {
    this.frame.hidden = true;
    this.legendSlot.replaceChildren();
    this.note.hidden = false;
    setText(this.note, `Map not available: ${reason}`);
    this.element.classList.remove('is-loading');
    this.element.classList.add('is-unavailable');
  }

  async show(product: string, hillshade: boolean): Promise<void> {
    const request = ++this.request;
    this.element.classList.add('is-loading');
    this.element.dataset.product = product;
    let legend: PreviewLegend;
    try {
      legend = await api<PreviewLegend>(previewPath(this.jobId, product, 'json'));
    } catch (error) {
      if (request === this.request) this.unavailable(messageOf(error));
      return;
    }
    if (request !== this.request) return;
    this.element.classList.remove('is-unavailable');
    this.frame.hidden = false;
    this.note.hidden = true;
    setText(this.caption, legend.title);
    this.image.width = legend.width;
    this.image.height = legend.height;
    // Shown at a readable size whatever the preview's: small previews are enlarged (cell by cell rather than
    // blurred), large ones reduced; the width is capped by the frame (CSS max-width).
    const scale = Math.min(this.displaySize / legend.width, (this.displaySize * 0.9) / legend.height);
    this.image.style.width = `${Math.round(legend.width * scale)}px`;
    this.image.classList.toggle('is-small', scale > 1.5);
    this.image.src = previewPath(this.jobId, product, 'png', hillshade);
    this.legendSlot.replaceChildren(legendBar(legend));
  }
}

/** The chart of the 12 monthly means (mean over the DEM's valid cells of each monthly map). */
export function monthlyChart(means: number[], unit: string): SVGSVGElement {
  // Large sums read better in kWh.
  const kilo = /^Wh\b/.test(unit) && Math.max(...means) >= 10_000;
  const values = kilo ? means.map((v) => v / 1000) : means;
  const shownUnit = prettyUnit(kilo ? unit.replace(/^Wh/, 'kWh') : unit);
  const W = 520;
  const H = 280;
  const left = 64;
  const right = 12;
  const top = 14;
  const bottom = 40;
  const ticks = niceTicks(Math.max(...values, 0));
  const top_ = ticks.at(-1)!;
  const x = (i: number) => left + ((W - left - right) / 12) * i;
  const y = (v: number) => H - bottom - ((H - top - bottom) * v) / top_;
  const band = (W - left - right) / 12;
  const parts: SVGElement[] = [];
  for (const t of ticks) {
    parts.push(svg('line', { x1: left, x2: W - right, y1: y(t), y2: y(t), class: t === 0 ? 'axis' : 'grid' }));
    parts.push(svg('text', { x: left - 6, y: y(t) + 4, 'text-anchor': 'end', class: 'tick' }, formatValue(t)));
  }
  values.forEach((v, i) => {
    const bar = svg('rect', { x: x(i) + band * 0.15, y: y(v), width: band * 0.7, height: Math.max(0, y(0) - y(v)), class: 'bar', 'data-month': MONTHS[i]! });
    bar.append(svg('title', {}, `${MONTH_LABELS[i]}: ${formatValue(v)} ${shownUnit}`));
    parts.push(bar);
    parts.push(svg('text', { x: x(i) + band / 2, y: H - bottom + 16, 'text-anchor': 'middle', class: 'tick month' }, MONTH_LABELS[i]!));
  });
  parts.push(svg('line', { x1: left, x2: left, y1: top, y2: H - bottom, class: 'axis' }));
  parts.push(svg('text', { x: 14, y: (top + H - bottom) / 2, 'text-anchor': 'middle', class: 'axis-title', transform: `rotate(-90 14 ${(top + H - bottom) / 2})` }, shownUnit));
  parts.push(svg('text', { x: (left + W - right) / 2, y: H - 4, 'text-anchor': 'middle', class: 'axis-title' }, 'Month'));
  return svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `Monthly means in ${shownUnit}: ${values.map((v, i) => `${MONTH_LABELS[i]} ${formatValue(v)}`).join(', ')}` }, ...parts);
}

/** Under the chart: the year's total and the brightest and darkest months, from the monthly means. */
function monthlySummary(legends: PreviewLegend[]): HTMLElement {
  const means = legends.map((l) => l.mean);
  const total = means.reduce((a, b) => a + b, 0);
  const kilo = /^Wh\b/.test(legends[0]!.unit) && total >= 10_000;
  const show = (v: number) => `${formatValue(kilo ? v / 1000 : v)} ${prettyUnit((kilo ? legends[0]!.unit.replace(/^Wh/, 'kWh') : legends[0]!.unit).replace(/month-1$/, ''))}`.trim();
  const brightest = means.indexOf(Math.max(...means));
  const darkest = means.indexOf(Math.min(...means));
  return h(
    'dl',
    { class: 'facts chart-summary' },
    h('dt', {}, 'Year (sum of the means)'),
    h('dd', {}, `${show(total)} yr⁻¹`),
    h('dt', {}, 'Brightest month'),
    h('dd', {}, `${MONTH_LABELS[brightest]}, ${show(means[brightest]!)} month⁻¹`),
    h('dt', {}, 'Darkest month'),
    h('dd', {}, `${MONTH_LABELS[darkest]}, ${show(means[darkest]!)} month⁻¹`),
  );
}

/** The results view of a completed job (built once per job and kept: its controls keep their state). */
export function resultsView(job: Job): HTMLElement {
  const id = job.id;
  const map = new MapView(id, 'map-main', `Map of job ${id}`);
  const kind = h(
    'select',
    { id: `map-kind-${id}`, class: 'map-kind' },
    ...[...SOLAR_MAPS.filter((m) => productsItem(job.parameters?.products, m.item).written), ...(job.workflow_type === 'eemt' ? TERRAIN_MAPS : [])].map((m) =>
      h('option', { value: m.value }, m.label),
    ),
  );
  // a job with the daily maps of some days only starts at the first of them
  const firstDay = SOLAR_MAPS.filter((m) => m.daily).map((m) => productsItem(job.parameters?.products, m.item).firstDay).find((d) => d !== null);
  const day = h('input', { type: 'range', id: `map-day-${id}`, class: 'map-day', min: 1, max: 365, step: 1, value: firstDay ?? DEFAULT_DAY, 'aria-label': 'Day of year' });
  const dayOutput = h('output', { for: day.id, class: 'map-day-label' });
  const hillshade = h('input', { type: 'checkbox', id: `map-hillshade-${id}`, class: 'map-hillshade' });
  const controls = h(
    'div',
    { class: 'map-controls' },
    h('label', { for: kind.id }, 'Map'),
    kind,
    h('div', { class: 'day-picker' }, h('label', { for: day.id }, 'Day'), day, dayOutput),
    h('label', { class: 'switch', for: hillshade.id }, hillshade, 'Hillshade'),
  );

  const isDaily = () => SOLAR_MAPS.some((m) => m.value === kind.value && m.daily);
  const product = () => (isDaily() ? `${kind.value}-${day.value}` : kind.value);
  const update = () => {
    const daily = isDaily();
    day.disabled = !daily;
    setText(dayOutput, `${day.value} · ${dayLabel(Number(day.value))}`);
    void map.show(product(), hillshade.checked);
  };
  let debounce = 0;
  day.addEventListener('input', () => {
    setText(dayOutput, `${day.value} · ${dayLabel(Number(day.value))}`);
    window.clearTimeout(debounce);
    debounce = window.setTimeout(update, 200);
  });
  day.addEventListener('change', () => {
    window.clearTimeout(debounce);
    update();
  });
  kind.addEventListener('change', update);
  hillshade.addEventListener('change', update);

  const chartSlot = h('div', { class: 'chart-slot' }, h('p', { class: 'map-note' }, 'Loading the monthly means…'));
  const chart = h('figure', { class: 'chart-figure' }, h('figcaption', { class: 'map-title' }, 'Monthly global irradiation (mean over the DEM)'), chartSlot);
  const monthly = productsItem(job.parameters?.products, 'monthly').written;
  if (!monthly) chartSlot.replaceChildren(h('p', { class: 'map-note' }, `No monthly sums: the job wrote ${String(job.parameters?.products)}.`));
  else void Promise.all(MONTHS.map((m) => api<PreviewLegend>(previewPath(id, `month-${m}`, 'json'))))
    .then((legends) => chartSlot.replaceChildren(monthlyChart(legends.map((l) => l.mean), legends[0]!.unit), monthlySummary(legends)))
    .catch((error: unknown) => chartSlot.replaceChildren(h('p', { class: 'map-note' }, `Chart not available: ${messageOf(error)}`)));

  const section = h(
    'section',
    { class: 'results', 'aria-label': 'Results', dataset: { job: id } },
    h('div', { class: 'results-grid' }, h('div', { class: 'results-map' }, controls, map.element), chart),
  );
  if (job.workflow_type === 'eemt') {
    const topo = new MapView(id, 'map-eemt', `EEMT-Topo map of job ${id}`, 300);
    const trad = new MapView(id, 'map-eemt', `EEMT-Trad map of job ${id}`, 300);
    void topo.show('eemt-topo-annual', false);
    void trad.show('eemt-trad-annual', false);
    section.append(h('h4', { class: 'results-sub' }, 'EEMT'), h('div', { class: 'eemt-maps' }, topo.element, trad.element));
  }
  update();
  return section;
}
