import type { Rgb } from '../image-fixtures';
import { contactShadow } from './shadow';
import { pick, type BackdropLayer, type Stage } from './stage';
import { linear, svgDocument, tone } from './svg';

/** Strong colours props are painted in. */
export const PROP_COLOURS: readonly Rgb[] = [
  [222, 38, 42],
  [28, 82, 204],
  [246, 198, 28],
  [36, 160, 72],
  [200, 40, 150],
  [26, 26, 32],
  [28, 178, 200],
  [246, 118, 20],
  [250, 250, 248],
];

/** Distance in pixels from (x, y) to the product's mask (0 inside), from a 4x coarser grid. */
function clearance(mask: Uint8Array, width: number, height: number): (x: number, y: number) => number {
  const f = 4;
  const gw = Math.ceil(width / f);
  const gh = Math.ceil(height / f);
  const cells = new Uint8Array(gw * gh);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) if (mask[y * width + x]) cells[Math.floor(y / f) * gw + Math.floor(x / f)] = 1;
  }
  const edge: number[] = [];
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      if (!cells[gy * gw + gx]) continue;
      const inner =
        gx > 0 &&
        gy > 0 &&
        gx < gw - 1 &&
        gy < gh - 1 &&
        cells[gy * gw + gx - 1] &&
        cells[gy * gw + gx + 1] &&
        cells[(gy - 1) * gw + gx] &&
        cells[(gy + 1) * gw + gx];
      if (!inner) edge.push((gx + 0.5) * f, (gy + 0.5) * f);
    }
  }
  // A cell's centre lies up to f / sqrt(2) from its farthest pixel: subtract it, to stay on the safe side.
  const slack = f * 0.75;
  return (x, y) => {
    const gx = Math.min(gw - 1, Math.max(0, Math.floor(x / f)));
    const gy = Math.min(gh - 1, Math.max(0, Math.floor(y / f)));
    if (cells[gy * gw + gx]) return 0;
    let best = Infinity;
    for (let i = 0; i < edge.length; i += 2) {
      const d = (edge[i] - x) ** 2 + (edge[i + 1] - y) ** 2;
      if (d < best) best = d;
    }
    return Math.max(0, Math.sqrt(best) - slack);
  };
}

/** One prop, centred on the origin and inside a circle of `radius`. */
function prop(kind: number, radius: number, next: () => number): string {
  if (kind === 0) return `<circle r="${(radius * (0.85 + 0.15 * next())).toFixed(1)}"/>`;
  if (kind === 1) {
    const angle = 0.35 + 0.85 * next();
    const w = 2 * radius * Math.cos(angle);
    const h = 2 * radius * Math.sin(angle);
    return (
      `<rect x="${(-w / 2).toFixed(1)}" y="${(-h / 2).toFixed(1)}" width="${w.toFixed(1)}" ` +
      `height="${h.toFixed(1)}" rx="${(0.06 * radius).toFixed(1)}"/>`
    );
  }
  const count = 5 + Math.floor(next() * 4);
  const points = Array.from({ length: count }, (_, i) => {
    const a = ((i + 0.3 * (next() - 0.5)) / count) * 2 * Math.PI;
    const r = radius * (0.5 + 0.5 * next());
    return `${(r * Math.cos(a)).toFixed(1)},${(r * Math.sin(a)).toFixed(1)}`;
  });
  return `<polygon points="${points.join(' ')}"/>`;
}

/**
 * Salient props for the 'clutter' backdrop: discs, rotated boxes and irregular polygons in strong
 * colours, some translucent, some cut by the frame's corners and borders. None comes closer to
 * the product than 4.5% of the frame's longer side.
 */
export function clutterProps(stage: Stage): string {
  const { width, height, next } = stage;
  const side = Math.max(width, height);
  const gap = 0.045 * side;
  const shadow = { dx: 0.006 * side, dy: 0.009 * side };
  const reach = Math.hypot(shadow.dx, shadow.dy);
  const clear = clearance(stage.mask, width, height);
  const small = Math.min(width, height);
  // Corners first, then the borders, then anywhere: each kept only if it stays clear of the product.
  const anchors: [number, number, number][] = [
    [0.04, 0.06, 0.16],
    [0.96, 0.06, 0.15],
    [0.04, 0.94, 0.15],
    [0.96, 0.94, 0.16],
    [0.5, 0.03, 0.09],
    [0.5, 0.97, 0.09],
    [0.02, 0.5, 0.11],
    [0.98, 0.5, 0.11],
  ];
  for (let i = 0; i < 120; i++) anchors.push([next(), next(), 0.05 + 0.07 * next()]);
  const placed: string[] = [];
  for (const [index, [fx, fy, size]] of anchors.entries()) {
    if (placed.length >= 12) break;
    const jitter = index < 8 ? 0.06 : 0;
    const x = (fx + (next() - 0.5) * jitter) * width;
    const y = (fy + (next() - 0.5) * jitter) * height;
    const room = clear(x, y) - gap - reach;
    if (room < 0.035 * small) continue;
    const radius = Math.min(size * small * (0.8 + 0.4 * next()), room);
    const colour = PROP_COLOURS[Math.floor(next() * PROP_COLOURS.length)];
    const translucent = next() < 0.4;
    const kind = Math.floor(next() * 3);
    const rotation = (next() * 180).toFixed(1);
    const shape = prop(kind, radius, next);
    const id = `prop${placed.length}`;
    const fill = linear(
      id,
      [0, 0, 0.3, 1],
      [
        [0, tone(colour, 0.18)],
        [1, tone(colour, -0.22)],
      ],
    );
    const shadowed = translucent
      ? ''
      : `<g transform="translate(${(x + shadow.dx).toFixed(1)} ${(y + shadow.dy).toFixed(1)}) rotate(${rotation})" ` +
        `fill="#000" opacity="0.16">${shape}</g>`;
    placed.push(
      `<defs>${fill}</defs>${shadowed}<g transform="translate(${x.toFixed(1)} ${y.toFixed(1)}) rotate(${rotation})" ` +
        `fill="url(#${id})" opacity="${translucent ? (0.45 + 0.25 * next()).toFixed(2) : 1}">${shape}</g>`,
    );
  }
  return placed.join('');
}

/** A plain wall with the props scattered over it, clear of the product. */
export function clutter(stage: Stage): BackdropLayer {
  const wall = pick(
    [
      [210, 204, 196],
      [192, 200, 206],
      [224, 218, 204],
    ] as Rgb[],
    stage.next,
  );
  return {
    svg: svgDocument(
      stage.width,
      stage.height,
      `<defs>${linear(
        'wall',
        [0, 0, 1, 1],
        [
          [0, tone(wall, 0.1)],
          [1, tone(wall, -0.12)],
        ],
      )}</defs><rect width="100%" height="100%" fill="url(#wall)"/>` +
        clutterProps(stage) +
        contactShadow(stage, 0.8),
    ),
  };
}
