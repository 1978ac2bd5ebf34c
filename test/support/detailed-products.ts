import sharp from 'sharp';
import { gaussian, random, type RawFixture } from './image-fixtures';
import { linear, radial } from './product-shots/svg';

/**
 * Product photos full of the detail an enlargement must bring back, drawn by the tests: a woven
 * basket (fine texture), a printed carton (text from 9 to 40 px, a barcode) and a wristwatch
 * (thin ticks, hands, a knurled bezel, a mesh strap). Each is drawn at twice its size and reduced
 * with Lanczos, as a lens and sensor band-limit a photo, then given faint sensor noise (sigma 1.5
 * levels, as a studio shot at low ISO has). The same pixels on every run.
 */

export interface DetailedPhoto {
  name: 'texture' | 'text' | 'lines';
  image: RawFixture;
}

/** Inter, the font the service itself ships, so text renders the same on every machine. */
const INTER = {
  regular: require.resolve('@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf'),
  bold: require.resolve('@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf'),
};

const SENSOR_NOISE = 1.5;

export async function detailedProductPhotos(width = 640, height = 480): Promise<DetailedPhoto[]> {
  return [
    { name: 'texture', image: await photographed(await basket(width * 2, height * 2), width, height, 1) },
    { name: 'text', image: await photographed(await carton(width * 2, height * 2), width, height, 2) },
    { name: 'lines', image: await photographed(await watch(width * 2, height * 2), width, height, 3) },
  ];
}

/** The drawing reduced to the photo's size (Lanczos 3) with seeded Gaussian noise. */
async function photographed(drawing: sharp.Sharp, width: number, height: number, seed: number): Promise<RawFixture> {
  const data = await drawing.resize(width, height, { kernel: 'lanczos3', fit: 'fill' }).removeAlpha().raw().toBuffer();
  const noise = gaussian(random(seed));
  for (let i = 0; i < data.length; i++)
    data[i] = Math.max(0, Math.min(255, Math.round(data[i] + noise() * SENSOR_NOISE)));
  return { data, width, height, channels: 3 };
}

/** A woven basket on a warm backdrop: strands 8 px wide over and under each other, each its own tone, with fibres. */
async function basket(width: number, height: number): Promise<sharp.Sharp> {
  const next = random(11);
  const cell = Math.round(width / 80);
  const tones = Array.from({ length: 4096 }, () => 0.75 + 0.25 * next());
  const fibre = Array.from({ length: 8192 }, () => next() - 0.5);
  const cx = width / 2;
  const cy = height * 0.55;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const backdrop = 215 - (40 * y) / height;
      const dx = (x - cx) / (width * 0.38);
      const dy = (y - cy) / (height * 0.36);
      if (Math.abs(dx) > 1 || Math.abs(dy) > 1 || dx * dx * dx * dx + dy * dy * dy * dy > 1) {
        data[i] = backdrop;
        data[i + 1] = backdrop - 8;
        data[i + 2] = backdrop - 22;
        continue;
      }
      const column = Math.floor(x / cell);
      const row = Math.floor(y / cell);
      const horizontal = (Math.floor(column / 2) + Math.floor(row / 2)) % 2 === 0;
      // Across the strand: rounded (bright in the middle, dark at its edges); along it: fibres.
      const across = horizontal ? (y % (cell * 2)) / (cell * 2) : (x % (cell * 2)) / (cell * 2);
      const along = horizontal ? x : y;
      const strand = horizontal ? row >> 1 : 2048 + (column >> 1);
      const roundness = Math.sin(Math.PI * across) ** 0.6;
      const fibres = 1 + 0.35 * fibre[(along * 3 + strand * 97) % fibre.length] * (1 - Math.abs(2 * across - 1));
      const light = 0.65 + 0.35 * (1 - Math.hypot(dx + 0.3, dy + 0.4) / 1.6);
      const value = tones[strand % tones.length] * roundness * fibres * light;
      data[i] = 205 * value;
      data[i + 1] = 150 * value;
      data[i + 2] = 85 * value;
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } });
}

/** A carton with a printed label: a brand, a product name, small print and a barcode. */
async function carton(width: number, height: number): Promise<sharp.Sharp> {
  const box = { left: width * 0.2, top: height * 0.08, width: width * 0.6, height: height * 0.84 };
  const scale = width / 640;
  const bars = Array.from({ length: 44 }, (_, i) =>
    rect(
      box.left + box.width * 0.58 + i * 3.2 * scale,
      box.top + box.height * 0.78,
      [2, 1, 3, 1, 2, 4, 1, 2][i % 8] * scale,
      box.height * 0.12,
      '#111',
    ),
  ).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs>
      ${linear(
        'wall',
        [0, 0, 0, 1],
        [
          [0, [228, 230, 234]],
          [1, [184, 188, 196]],
        ],
      )}
      ${linear(
        'face',
        [0, 0, 1, 1],
        [
          [0, [246, 241, 230]],
          [1, [217, 209, 192]],
        ],
      )}
    </defs>
    ${rect(0, 0, width, height, 'url(#wall)')}
    ${rect(box.left, box.top, box.width, box.height, 'url(#face)', `stroke="#8a8270" stroke-width="${scale}"`)}
    ${rect(box.left, box.top + box.height * 0.3, box.width, box.height * 0.05, '#1d4e89')}
    ${rect(box.left, box.top + box.height * 0.37, box.width, scale, '#1d4e89')}
    ${bars}
  </svg>`;
  const lines: [string, 'regular' | 'bold', number, number, number][] = [
    ['NORDLICHT', 'bold', 40, 0.06, 0.06],
    ['Organic Chamomile Tea', 'regular', 22, 0.06, 0.2],
    ['20 tea bags · 30 g · Net wt 1.06 oz', 'regular', 14, 0.06, 0.42],
    ['Ingredients: chamomile flowers (100%). Steep 5-7 minutes', 'regular', 10, 0.06, 0.5],
    ['in freshly boiled water. Store in a cool, dry place.', 'regular', 10, 0.06, 0.55],
    ['Best before: see base. Lot 24-0917-B. Made in Denmark.', 'regular', 9, 0.06, 0.6],
    ['4 006381 333931', 'regular', 11, 0.58, 0.91],
  ];
  const texts = await Promise.all(
    lines.map(async ([text, weight, size, left, top]) => ({
      input: await sharp({
        text: {
          text: `<span foreground="#1b1b1b">${text}</span>`,
          font: `Inter ${Math.round(size * scale)}px`,
          fontfile: INTER[weight],
          rgba: true,
          dpi: 72,
        },
      })
        .png()
        .toBuffer(),
      left: Math.round(box.left + box.width * left),
      top: Math.round(box.top + box.height * top),
    })),
  );
  return sharp(await sharp(Buffer.from(svg)).composite(texts).png().toBuffer());
}

/** A wristwatch: minute ticks, hour bars, thin hands, a knurled bezel and a fine mesh strap. */
async function watch(width: number, height: number): Promise<sharp.Sharp> {
  const cx = width / 2;
  const cy = height / 2;
  const r = height * 0.3;
  const u = width / 640;
  const polar = (radius: number, angle: number) => `${cx + radius * Math.sin(angle)},${cy - radius * Math.cos(angle)}`;
  const line = (a: string, b: string, stroke: string, w: number) => {
    const [x1, y1] = a.split(',');
    const [x2, y2] = b.split(',');
    const style = `stroke="${stroke}" stroke-width="${w}" stroke-linecap="round"`;
    return `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" ${style}/>`;
  };
  const ticks = Array.from({ length: 60 }, (_, i) => {
    const angle = (i / 60) * 2 * Math.PI;
    return i % 5 === 0
      ? line(polar(r * 0.78, angle), polar(r * 0.92, angle), '#222', 3 * u)
      : line(polar(r * 0.86, angle), polar(r * 0.92, angle), '#333', 1 * u);
  }).join('');
  const knurls = Array.from({ length: 120 }, (_, i) => {
    const angle = (i / 120) * 2 * Math.PI;
    return line(polar(r * 1.02, angle), polar(r * 1.12, angle), '#5a5f66', 1.2 * u);
  }).join('');
  const mesh = Array.from({ length: 80 }, (_, i) => {
    const x = cx - r * 0.55 + i * 3 * u;
    return `<line x1="${x}" y1="0" x2="${x + 30 * u}" y2="${height}" stroke="#7c828a" stroke-width="${u}"/>`;
  }).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs>
      ${radial(
        'dial',
        [0.4, 0.35, 0.8],
        [
          [0, [251, 251, 248]],
          [1, [212, 214, 210]],
        ],
      )}
      ${linear(
        'steel',
        [0, 0, 1, 0],
        [
          [0, [141, 147, 155]],
          [0.5, [227, 230, 234]],
          [1, [122, 128, 136]],
        ],
      )}
      <clipPath id="strap">${rect(cx - r * 0.55, 0, r * 1.1, height, '#000')}</clipPath>
    </defs>
    ${rect(0, 0, width, height, '#2f3a45')}
    ${rect(cx - r * 0.55, 0, r * 1.1, height, 'url(#steel)')}
    <g clip-path="url(#strap)">${mesh}</g>
    <circle cx="${cx}" cy="${cy}" r="${r * 1.14}" fill="url(#steel)"/>
    ${knurls}
    <circle cx="${cx}" cy="${cy}" r="${r}" fill="url(#dial)" stroke="#444" stroke-width="${1.5 * u}"/>
    ${ticks}
    ${line(`${cx},${cy}`, polar(r * 0.55, 5.2), '#111', 5 * u)}
    ${line(`${cx},${cy}`, polar(r * 0.8, 1.1), '#111', 3 * u)}
    ${line(polar(r * 0.15, 3.9 + Math.PI), polar(r * 0.88, 3.9), '#c0262d', 1.2 * u)}
    <circle cx="${cx}" cy="${cy}" r="${5 * u}" fill="#111"/>
  </svg>`;
  return sharp(Buffer.from(svg));
}

function rect(x: number, y: number, width: number, height: number, fill: string, extra = ''): string {
  return `<rect x="${x}" y="${y}" width="${width}" height="${height}" fill="${fill}" ${extra}/>`;
}
