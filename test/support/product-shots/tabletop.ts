import type { Rgb } from '../image-fixtures';
import type { Placement } from './render';
import { contactShadow } from './shadow';
import { pick, type BackdropLayer, type Stage } from './stage';
import { BLACK, WHITE, linear, radial, svgDocument, tone, valueNoise } from './svg';

/** Where the wall meets the table: behind the product's lower part, and at least 14% of the frame above its base. */
export function horizonOf(height: number, box: Placement): number {
  const base = box.top + box.height;
  return Math.max(0.3 * height, Math.min(base - 0.14 * height, box.top + 0.62 * box.height));
}

/** A painted wall meeting a wooden table; the product stands on the table, light from the left. */
export function tabletop(stage: Stage): BackdropLayer {
  const { width, height, placement: box } = stage;
  const horizon = horizonOf(height, box);
  const wall = pick(
    [
      [214, 206, 194],
      [196, 208, 214],
      [226, 222, 212],
      [178, 190, 170],
    ] as Rgb[],
    stage.next,
  );
  const wood = pick(
    [
      [160, 108, 64],
      [188, 142, 94],
      [124, 82, 52],
    ] as Rgb[],
    stage.next,
  );
  const table = height - horizon;
  const svg = svgDocument(
    width,
    height,
    `<defs>
      ${linear(
        'wall',
        [0, 0, 0, 1],
        [
          [0, tone(wall, 0.12)],
          [1, tone(wall, -0.12)],
        ],
      )}
      ${radial(
        'window',
        [0.1, 0.05, 0.9],
        [
          [0, WHITE, 0.22],
          [1, WHITE, 0],
        ],
      )}
      ${linear(
        'table',
        [0, 0, 0, 1],
        [
          [0, tone(wood, -0.3)],
          [0.12, tone(wood, -0.05)],
          [1, tone(wood, 0.1)],
        ],
      )}
      ${linear(
        'falloff',
        [0, 0, 1, 0],
        [
          [0, WHITE, 0.08],
          [1, BLACK, 0.18],
        ],
      )}
    </defs>
    <rect width="${width}" height="${horizon}" fill="url(#wall)"/>
    <rect width="${width}" height="${horizon}" fill="url(#window)"/>
    <rect y="${horizon}" width="${width}" height="${table}" fill="url(#table)"/>
    <rect width="${width}" height="${height}" fill="url(#falloff)"/>
    <rect y="${horizon - 1.5}" width="${width}" height="3" fill="#000" opacity="0.3"/>
    <rect y="${horizon + 1.5}" width="${width}" height="2" fill="#fff" opacity="0.12"/>
    ${stage.props ?? ''}${contactShadow(stage, 1, 1)}`,
  );
  const noise = valueNoise(stage.seed);
  const near = table + 0.04 * height;
  // Grain sizes in pixels at the front edge, for a 900-pixel-high frame.
  const unit = Math.max(0.5, height / 900);
  const ringWidth = 11 * unit;
  const plank = 130 * unit;
  const grain = (x: number, y: number) => {
    if (y <= horizon) return 1;
    // Planks run across the frame, seen in perspective: in table units (pixels at the front edge)
    // depth grows as 1 / (distance below the horizon), so the grain crowds towards the horizon,
    // and fades out where it would be finer than the pixels.
    const distance = y - horizon + 0.04 * height;
    const depth = (near * near) / distance;
    const across = ((x - width / 2) * near) / distance;
    const pixelsPerRing = (ringWidth * distance * distance) / (near * near);
    const fade = Math.min(1, Math.max(0, (pixelsPerRing - 2) / 4));
    const board = Math.floor(depth / plank);
    const phase =
      (2 * Math.PI * depth) / ringWidth +
      9 * noise(across / (140 * unit) + board * 13.7, depth / (60 * unit)) +
      3 * noise(across / (40 * unit) + 77, depth / (20 * unit) + board);
    const ring = 0.5 + 0.5 * Math.sin(phase);
    const seam = depth % plank < 2 * unit ? 0.25 : 0;
    const fibre = noise(across / (3 * unit) + 50, depth / (1.2 * unit));
    const tint = 0.1 * (noise(board * 7.1, 3.3) - 0.5) + 0.06 * (noise(across / 200, board * 3.1) - 0.5);
    return 1 + tint - fade * (0.16 * ring * ring * ring + 0.05 * fibre + seam);
  };
  return { svg, grain };
}
