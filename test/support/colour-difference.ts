/**
 * CIELAB and the CIEDE2000 colour difference, for judging colour corrections on decoded pixels.
 * CIEDE2000 follows Sharma, Wu and Dalal, "The CIEDE2000 color-difference formula: implementation
 * notes, supplementary test data, and mathematical observations", Color Research & Application
 * 30(1), 2005, equations (1)-(22), with kL = kC = kH = 1.
 */

export type Lab = [number, number, number];

/** D65 white in XYZ (Y = 1), the white of sRGB. */
const WHITE = [0.95047, 1, 1.08883];

const linear = (level: number) => {
  const c = level / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

/** CIELAB (D65) of linear sRGB (0..1 per channel). */
export function labOfLinear([r, g, b]: readonly number[]): Lab {
  const xyz = [
    0.4124564 * r + 0.3575761 * g + 0.1804375 * b,
    0.2126729 * r + 0.7151522 * g + 0.072175 * b,
    0.0193339 * r + 0.119192 * g + 0.9503041 * b,
  ];
  const f = (t: number) => (t > (6 / 29) ** 3 ? Math.cbrt(t) : t / (3 * (6 / 29) ** 2) + 4 / 29);
  const [fx, fy, fz] = xyz.map((value, i) => f(value / WHITE[i]));
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** CIELAB of an 8-bit sRGB colour. */
export const labOf = (rgb: readonly number[]): Lab => labOfLinear(rgb.map(linear));

/** Mean colour of a rectangle of an RGBA image, averaged in linear light, as CIELAB. */
export function meanLab(
  image: { data: Buffer; width: number; channels: number },
  area: { left: number; top: number; width: number; height: number },
  inside: (x: number, y: number) => boolean = () => true,
): Lab {
  const sum = [0, 0, 0];
  let count = 0;
  for (let y = area.top; y < area.top + area.height; y++) {
    for (let x = area.left; x < area.left + area.width; x++) {
      if (!inside(x, y)) continue;
      const i = (y * image.width + x) * image.channels;
      for (let c = 0; c < 3; c++) sum[c] += linear(image.data[i + c]);
      count++;
    }
  }
  return labOfLinear(sum.map((value) => value / count));
}

/** Chroma and hue angle (degrees, 0..360) of a CIELAB colour. */
export function chromaAndHue([, a, b]: Lab): { chroma: number; hue: number } {
  return { chroma: Math.hypot(a, b), hue: ((Math.atan2(b, a) * 180) / Math.PI + 360) % 360 };
}

const degrees = (radians: number) => (radians * 180) / Math.PI;
const radians = (deg: number) => (deg * Math.PI) / 180;

/** The CIEDE2000 difference between two CIELAB colours. */
export function ciede2000([l1, a1, b1]: Lab, [l2, a2, b2]: Lab): number {
  // (2)-(7): a' stretched by G, which depends on the mean chroma.
  const meanChroma = (Math.hypot(a1, b1) + Math.hypot(a2, b2)) / 2;
  const g = 0.5 * (1 - Math.sqrt(meanChroma ** 7 / (meanChroma ** 7 + 25 ** 7)));
  const a1p = (1 + g) * a1;
  const a2p = (1 + g) * a2;
  const c1p = Math.hypot(a1p, b1);
  const c2p = Math.hypot(a2p, b2);
  const hueOf = (a: number, b: number) => (a === 0 && b === 0 ? 0 : (degrees(Math.atan2(b, a)) + 360) % 360);
  const h1p = hueOf(a1p, b1);
  const h2p = hueOf(a2p, b2);

  // (8)-(10): differences; the hue difference is 0 when either chroma is.
  const deltaL = l2 - l1;
  const deltaC = c2p - c1p;
  let deltah = 0;
  if (c1p * c2p !== 0) {
    deltah = h2p - h1p;
    if (deltah > 180) deltah -= 360;
    else if (deltah < -180) deltah += 360;
  }
  const deltaH = 2 * Math.sqrt(c1p * c2p) * Math.sin(radians(deltah / 2));

  // (12)-(14): means; the mean hue goes the short way round the circle.
  const meanL = (l1 + l2) / 2;
  const meanCp = (c1p + c2p) / 2;
  let meanH = h1p + h2p;
  if (c1p * c2p !== 0) {
    if (Math.abs(h1p - h2p) <= 180) meanH = (h1p + h2p) / 2;
    else meanH = h1p + h2p < 360 ? (h1p + h2p + 360) / 2 : (h1p + h2p - 360) / 2;
  }

  // (15)-(22): weights and the rotation term.
  const t =
    1 -
    0.17 * Math.cos(radians(meanH - 30)) +
    0.24 * Math.cos(radians(2 * meanH)) +
    0.32 * Math.cos(radians(3 * meanH + 6)) -
    0.2 * Math.cos(radians(4 * meanH - 63));
  const deltaTheta = 30 * Math.exp(-(((meanH - 275) / 25) ** 2));
  const rc = 2 * Math.sqrt(meanCp ** 7 / (meanCp ** 7 + 25 ** 7));
  const sl = 1 + (0.015 * (meanL - 50) ** 2) / Math.sqrt(20 + (meanL - 50) ** 2);
  const sc = 1 + 0.045 * meanCp;
  const sh = 1 + 0.015 * meanCp * t;
  const rt = -Math.sin(radians(2 * deltaTheta)) * rc;
  return Math.sqrt((deltaL / sl) ** 2 + (deltaC / sc) ** 2 + (deltaH / sh) ** 2 + rt * (deltaC / sc) * (deltaH / sh));
}
