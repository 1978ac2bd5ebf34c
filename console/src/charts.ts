/**
 * Small bar charts drawn as SVG elements through the DOM, like the rest of the console: no
 * markup strings, and no style attributes (the console's policy refuses inline styles), only
 * geometry attributes and classes that console.css colours. Each chart is a figure whose SVG
 * names itself (`<title>`, `<desc>`) and whose caption says in words what the bars show.
 */
const SVG_NS = 'http://www.w3.org/2000/svg';

type SvgAttributes = Record<string, string | number>;

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: SvgAttributes = {},
  ...children: (Node | string)[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
}

/** One series of a stacked bar: its name (in tooltips and the legend) and the class that colours it. */
export interface Series {
  name: string;
  className: string;
}

export interface Bar {
  /** What the bar stands for, in its tooltip and under it when its tick is shown. */
  label: string;
  /** One value per series, stacked bottom up. */
  values: number[];
}

export interface BarChartOptions {
  /** Names the chart for `data-chart` (and the tests). */
  name: string;
  title: string;
  /** What the bars show, in words: the figure's caption and the SVG's description. */
  summary: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  bars: Bar[];
  /** Label every n-th bar under the axis, counted back from the last, which is always labelled. */
  tickEvery?: number;
}

const WIDTH = 640;
const HEIGHT = 240;
const MARGIN = { top: 12, right: 12, bottom: 52, left: 52 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;
/** A few bars stay bars rather than slabs across the plot. */
const MAX_BAR_WIDTH = 48;

let chartCount = 0;

/** The top of the value axis: the largest stack, rounded up to a number that halves evenly. */
function axisTop(bars: Bar[]): number {
  const largest = Math.max(0, ...bars.map((bar) => bar.values.reduce((sum, value) => sum + value, 0)));
  if (largest <= 2) return 2;
  const step = 10 ** Math.floor(Math.log10(largest));
  const top = Math.ceil(largest / (step / 2)) * (step / 2);
  return top % 2 === 0 ? top : top + 1;
}

/** A vertical bar chart with stacked series, a value axis with three ticks and labelled axes. */
export function barChart(options: BarChartOptions): HTMLElement {
  const id = `chart-${++chartCount}`;
  const top = axisTop(options.bars);
  const y = (value: number) => MARGIN.top + PLOT_HEIGHT - (value / top) * PLOT_HEIGHT;
  const slot = PLOT_WIDTH / Math.max(1, options.bars.length);
  const barWidth = Math.max(1, Math.min(MAX_BAR_WIDTH, slot * 0.8));
  const tickEvery = options.tickEvery ?? 1;

  const chart = svg('svg', {
    class: 'chart',
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: 'img',
    'aria-labelledby': `${id}-title ${id}-desc`,
    'data-chart': options.name,
  });
  chart.append(svg('title', { id: `${id}-title` }, options.title), svg('desc', { id: `${id}-desc` }, options.summary));

  const axes = svg('g', { class: 'chart-axes' });
  axes.append(
    svg('line', { x1: MARGIN.left, y1: MARGIN.top, x2: MARGIN.left, y2: MARGIN.top + PLOT_HEIGHT }),
    svg('line', {
      x1: MARGIN.left,
      y1: MARGIN.top + PLOT_HEIGHT,
      x2: MARGIN.left + PLOT_WIDTH,
      y2: MARGIN.top + PLOT_HEIGHT,
    }),
  );
  for (const value of [0, top / 2, top]) {
    axes.append(
      svg('line', { class: 'chart-grid', x1: MARGIN.left, y1: y(value), x2: MARGIN.left + PLOT_WIDTH, y2: y(value) }),
      svg('text', { class: 'chart-tick', x: MARGIN.left - 6, y: y(value) + 4, 'text-anchor': 'end' }, String(value)),
    );
  }
  axes.append(
    svg(
      'text',
      { class: 'chart-axis-label', x: MARGIN.left + PLOT_WIDTH / 2, y: HEIGHT - 6, 'text-anchor': 'middle' },
      options.xLabel,
    ),
    svg(
      'text',
      {
        class: 'chart-axis-label',
        transform: `translate(14 ${MARGIN.top + PLOT_HEIGHT / 2}) rotate(-90)`,
        'text-anchor': 'middle',
      },
      options.yLabel,
    ),
  );
  chart.append(axes);

  const bars = svg('g', { class: 'chart-bars' });
  options.bars.forEach((bar, index) => {
    const x = MARGIN.left + index * slot + (slot - barWidth) / 2;
    const group = svg('g', { class: 'chart-bar', 'data-label': bar.label });
    const described = options.series.map((series, s) => `${series.name} ${bar.values[s] ?? 0}`).join(', ');
    group.append(svg('title', {}, `${bar.label}: ${described}`));
    let base = 0;
    options.series.forEach((series, s) => {
      const value = bar.values[s] ?? 0;
      group.append(
        svg('rect', {
          class: series.className,
          x,
          y: y(base + value),
          width: barWidth,
          height: y(base) - y(base + value),
          'data-series': series.name,
          'data-value': value,
        }),
      );
      base += value;
    });
    bars.append(group);
    if ((options.bars.length - 1 - index) % tickEvery === 0) {
      bars.append(
        svg(
          'text',
          { class: 'chart-tick', x: x + barWidth / 2, y: MARGIN.top + PLOT_HEIGHT + 16, 'text-anchor': 'middle' },
          bar.label,
        ),
      );
    }
  });
  chart.append(bars);

  const figure = document.createElement('figure');
  figure.className = 'chart-figure';
  const caption = document.createElement('figcaption');
  caption.textContent = options.summary;
  figure.append(chart, caption);
  if (options.series.length > 1) {
    const legend = document.createElement('ul');
    legend.className = 'chart-legend';
    for (const series of options.series) {
      const item = document.createElement('li');
      item.append(
        svg(
          'svg',
          { class: 'chart-swatch', viewBox: '0 0 10 10', 'aria-hidden': 'true' },
          svg('rect', {
            class: series.className,
            width: 10,
            height: 10,
          }),
        ),
        series.name,
      );
      legend.append(item);
    }
    figure.append(legend);
  }
  return figure;
}
