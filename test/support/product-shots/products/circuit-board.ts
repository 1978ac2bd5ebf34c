import type { Rgb } from '../../image-fixtures';
import { BLACK, WHITE, hex, linear, radial, tone } from '../svg';
import type { Palette, ProductDrawing } from './product';

/**
 * A populated circuit board seen from above: solder mask with copper traces under it, white
 * silkscreen and connectors, a silver shield can, chips with silver leads, electrolytic capacitors.
 * Its four mounting holes are real holes: they show the backdrop, so the mask has them too.
 */
const WIDTH = 1000;
const HEIGHT = 640;
const HOLES: readonly [number, number][] = [
  [34, 34],
  [966, 34],
  [34, 606],
  [966, 606],
];
const HOLE = 13;

const circle = (cx: number, cy: number, r: number) =>
  `M${cx - r},${cy} A${r},${r} 0 1 0 ${cx + r},${cy} A${r},${r} 0 1 0 ${cx - r},${cy} Z`;
/** The board's outline with its holes, filled even-odd. */
const BOARD =
  `M18,0 L${WIDTH - 18},0 Q${WIDTH},0 ${WIDTH},18 L${WIDTH},${HEIGHT - 18} ` +
  `Q${WIDTH},${HEIGHT} ${WIDTH - 18},${HEIGHT} ` +
  `L18,${HEIGHT} Q0,${HEIGHT} 0,${HEIGHT - 18} L0,18 Q0,0 18,0 Z ` +
  HOLES.map(([x, y]) => circle(x, y, HOLE)).join(' ');

/** A chip: a black body and `count` silver leads on the sides listed in `sides` ('h' left/right, 'v' top/bottom). */
function chip(x: number, y: number, w: number, h: number, count: number, sides: string, p: Palette): string {
  const leads: string[] = [];
  const lead = 7;
  for (let i = 0; i < count; i++) {
    if (sides.includes('v')) {
      const lx = x + ((i + 0.5) * w) / count - 3;
      leads.push(`<rect x="${lx}" y="${y - lead}" width="6" height="${lead + 2}" fill="${hex(p.trim)}"/>`);
      leads.push(`<rect x="${lx}" y="${y + h - 2}" width="6" height="${lead + 2}" fill="${hex(p.trim)}"/>`);
    }
    if (sides.includes('h')) {
      const ly = y + ((i + 0.5) * h) / count - 3;
      leads.push(`<rect x="${x - lead}" y="${ly}" width="${lead + 2}" height="6" fill="${hex(p.trim)}"/>`);
      leads.push(`<rect x="${x + w - 2}" y="${ly}" width="${lead + 2}" height="6" fill="${hex(p.trim)}"/>`);
    }
  }
  return (
    leads.join('') +
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="3" fill="${hex(p.detail)}"/>` +
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="3" fill="url(#chip-light)"/>` +
    `<circle cx="${x + 12}" cy="${y + 12}" r="4" fill="${hex(tone(p.detail, 0.25))}"/>`
  );
}

/** A two-terminal surface-mount part: a body with silver ends, along x or along y. */
function passive(x: number, y: number, vertical: boolean, body: Rgb, p: Palette): string {
  const [w, h] = vertical ? [12, 24] : [24, 12];
  const end = vertical
    ? `<rect x="${x}" y="${y}" width="12" height="6" fill="${hex(p.trim)}"/><rect x="${x}" y="${y + 18}" width="12" ` +
      `height="6" fill="${hex(p.trim)}"/>`
    : `<rect x="${x}" y="${y}" width="6" height="12" fill="${hex(p.trim)}"/><rect x="${x + 18}" y="${y}" width="6" ` +
      `height="12" fill="${hex(p.trim)}"/>`;
  return `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${hex(body)}"/>${end}`;
}

/** An electrolytic capacitor from above: a silver can with its pressure vent and polarity band. */
const capacitor = (cx: number, cy: number, r: number, p: Palette) =>
  `<circle cx="${cx}" cy="${cy}" r="${r + 4}" fill="${hex(p.accent)}"/>` +
  `<circle cx="${cx}" cy="${cy}" r="${r}" fill="url(#can)"/>` +
  `<path d="M${cx - r * 0.6},${cy} L${cx + r * 0.6},${cy} M${cx},${cy - r * 0.6} L${cx},${cy + r * 0.6}" ` +
  `stroke="${hex(tone(p.trim, -0.35))}" stroke-width="3"/>` +
  `<path d="M${cx - r},${cy} A${r},${r} 0 0 1 ${cx},${cy - r}" stroke="${hex(tone(p.detail, 0.1))}" ` +
  `stroke-width="7" fill="none"/>`;

function draw(p: Palette): string {
  const copper = hex(tone(p.body, 0.16));
  const silk = hex(p.accent);
  const traces = [
    'M420,285 L520,285 L560,245 L560,200',
    'M420,300 L540,300 L600,360 L700,360 L700,384',
    'M420,315 L520,315 L560,355 L560,470 L540,490',
    'M250,285 L190,285 L150,245 L150,140',
    'M250,330 L200,330 L180,350 L180,420',
    'M335,370 L335,460 L380,505 L420,505',
    'M360,370 L360,440 L392,472 L600,472 L640,512 L640,540',
    'M300,200 L300,130 L320,110',
    'M380,200 L380,150 L410,130 L470,130',
    'M860,190 L880,210 L880,330',
    'M790,456 L790,520 L760,550 L660,550',
    'M100,300 L100,400 L140,440',
    'M700,456 L700,600 L880,600',
  ]
    .map((d) => `<path d="${d}" stroke="${copper}" stroke-width="5" fill="none" stroke-linejoin="round"/>`)
    .join('');
  const vias = [
    [520, 285],
    [560, 200],
    [150, 140],
    [180, 420],
    [470, 130],
    [880, 330],
    [140, 440],
    [880, 600],
    [540, 490],
  ]
    .map(
      ([x, y]) =>
        `<circle cx="${x}" cy="${y}" r="6" fill="${hex(p.trim)}"/><circle cx="${x}" cy="${y}" r="2.5" ` +
        `fill="${hex(tone(p.body, -0.5))}"/>`,
    )
    .join('');
  const header = Array.from({ length: 20 }, (_, i) => {
    const x = 96 + (i % 10) * 34;
    const y = 66 + Math.floor(i / 10) * 30;
    return `<rect x="${x}" y="${y}" width="12" height="12" fill="url(#pin)"/>`;
  }).join('');
  const slots = (x: number, y: number, count: number, step: number, vertical: boolean) =>
    Array.from({ length: count }, (_, i) =>
      vertical
        ? `<rect x="${x}" y="${y + i * step}" width="22" height="12" rx="2" fill="${hex(tone(p.accent, -0.55))}"/>`
        : `<rect x="${x + i * step}" y="${y}" width="12" height="22" rx="2" fill="${hex(tone(p.accent, -0.55))}"/>`,
    ).join('');
  const vents = Array.from({ length: 24 }, (_, i) => {
    const x = 592 + (i % 8) * 32;
    const y = 112 + Math.floor(i / 8) * 54;
    return `<circle cx="${x}" cy="${y}" r="6" fill="${hex(tone(p.trim, -0.3))}"/>`;
  }).join('');
  const parts: [number, number, boolean][] = [
    [460, 230, false],
    [460, 340, false],
    [200, 380, true],
    [230, 380, true],
    [600, 400, false],
    [610, 510, true],
    [120, 500, false],
    [380, 560, false],
    [880, 380, true],
    [850, 380, true],
    [520, 120, false],
  ];
  const passives = parts
    .map(([x, y, vertical], i) => passive(x, y, vertical, i % 3 === 0 ? [196, 150, 96] : [40, 40, 44], p))
    .join('');
  const labels = [
    [90, 140, 60],
    [430, 160, 40],
    [620, 320, 70],
    [120, 560, 90],
    [700, 500, 50],
    [260, 400, 50],
  ]
    .map(
      ([x, y, w]) =>
        `<rect x="${x}" y="${y}" width="${w}" height="6" fill="${silk}"/><rect x="${x}" y="${y + 10}" ` +
        `width="${w * 0.6}" height="6" fill="${silk}"/>`,
    )
    .join('');
  const rings = HOLES.map(
    ([x, y]) => `<path d="${circle(x, y, HOLE + 11)} ${circle(x, y, HOLE)}" fill="url(#plating)" fill-rule="evenodd"/>`,
  ).join('');
  return (
    `
  <defs>
    <clipPath id="board"><path d="${BOARD}" clip-rule="evenodd"/></clipPath>
    ${linear(
      'board-light',
      [0, 0, 1, 1],
      [
        [0, WHITE, 0.1],
        [0.5, BLACK, 0],
        [1, BLACK, 0.14],
      ],
    )}
    ${linear(
      'shield',
      [0, 0, 1, 1],
      [
        [0, tone(p.trim, 0.4)],
        [0.45, p.trim],
        [0.55, tone(p.trim, 0.15)],
        [1, tone(p.trim, -0.22)],
      ],
    )}
    ${linear(
      'chip-light',
      [0, 0, 1, 1],
      [
        [0, WHITE, 0.12],
        [1, BLACK, 0.2],
      ],
    )}
    ${radial(
      'can',
      [0.5, 0.5, 0.5, 0.35, 0.35],
      [
        [0, tone(p.trim, 0.45)],
        [0.7, p.trim],
        [1, tone(p.trim, -0.3)],
      ],
    )}
    ${radial(
      'plating',
      [0.5, 0.5, 0.5, 0.35, 0.35],
      [
        [0, tone(p.trim, 0.3)],
        [1, tone(p.trim, -0.15)],
      ],
    )}
    ${linear(
      'pin',
      [0, 0, 1, 1],
      [
        [0, tone(p.trim, 0.4)],
        [1, tone(p.trim, -0.3)],
      ],
    )}
    ${linear(
      'plastic',
      [0, 0, 0, 1],
      [
        [0, tone(p.accent, 0.3)],
        [1, tone(p.accent, -0.1)],
      ],
    )}
  </defs>
  <path d="${BOARD}" fill="${hex(p.body)}" fill-rule="evenodd"/>
  <g clip-path="url(#board)">
    ${traces}
    <rect x="8" y="8" width="${WIDTH - 16}" height="${HEIGHT - 16}" rx="14" fill="none" stroke="${silk}" ` +
    `stroke-width="3" opacity="0.8"/>
    ${labels}
    ${vias}
    ${rings}
    <rect x="80" y="52" width="360" height="70" fill="${hex(p.detail)}"/>
    ${header}
    <rect x="560" y="70" width="290" height="200" rx="6" fill="url(#shield)"/>
    <rect x="560" y="70" width="290" height="200" rx="6" fill="none" stroke="${hex(tone(p.trim, -0.3))}" ` +
    `stroke-width="3"/>
    ${vents}
    ${chip(250, 200, 170, 170, 12, 'hv', p)}
    ${chip(120, 420, 120, 64, 6, 'v', p)}
    ${chip(880, 150, 60, 60, 4, 'hv', p)}
    ${passives}
    ${capacitor(700, 420, 36, p)}
    ${capacitor(790, 420, 36, p)}
    <rect x="460" y="392" width="96" height="40" rx="18" fill="url(#shield)"/>
    <rect x="420" y="560" width="230" height="70" rx="4" fill="url(#plastic)"/>
    ${slots(436, 584, 8, 26, false)}
    <rect x="926" y="300" width="64" height="200" rx="4" fill="url(#plastic)"/>
    ${slots(946, 318, 7, 26, true)}
    <rect x="0" y="230" width="62" height="100" rx="4" fill="url(#shield)"/>
    <rect x="10" y="250" width="40" height="60" rx="3" fill="${hex(tone(p.trim, -0.5))}"/>
    <rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="url(#board-light)"/>
  </g>`
  );
}

/** Solder mask in `body`, silver parts in `trim`, white silkscreen and connectors in `accent`, chips in `detail`. */
const board = (body: Rgb, light: Rgb): ProductDrawing => ({
  width: WIDTH,
  height: HEIGHT,
  footprint: [0, 1, 1],
  colours: { body, trim: [198, 200, 204], accent: [244, 243, 238], detail: [34, 34, 38] },
  light: { body: light, trim: [204, 206, 210], accent: [252, 252, 250], detail: [96, 96, 102] },
  grain: { size: [4, 4], strength: 0.025 },
  draw,
});

export const circuitBoard = board([26, 112, 64], [238, 240, 234]);
export const blueCircuitBoard = board([26, 72, 152], [236, 238, 240]);
