import type { Backdrop } from './backdrops';
import type { HardKind } from './hard-scenes';
import { PROP_FAMILIES, PROP_MATERIALS, type PropFamily, type PropMaterial } from './props';

export interface HardShotSpec {
  /** `<kind>-<product>[-<prop family>]-<seed>`, e.g. 'touching-bottle-disc-1'. */
  name: string;
  kind: HardKind;
  product: string;
  backdrop: Backdrop;
  /** The one family of every prop in the shot; null for kinds without props. */
  propFamily: PropFamily | null;
  /** The material of the props against or beside the product; null for kinds without props. */
  propMaterial: PropMaterial | null;
  seed: number;
}

/** The plain shots' products, and two with open frames and thin bands that props can show through. */
const PROP_PRODUCTS = [
  'bottle',
  'carton',
  'mug',
  'sneaker',
  'ball',
  'lamp',
  'chair',
  'backpack',
  'headphones',
  'eyeglasses',
];

/**
 * `perFamily` shots of `kind` for every prop family. Products, materials and backdrops rotate with
 * different strides and a per-kind offset, so that every family meets every material across the
 * kinds and no family keeps to one product or backdrop.
 */
function withProps(kind: HardKind, perFamily: number, backdrops: readonly Backdrop[], offset: number): HardShotSpec[] {
  return PROP_FAMILIES.flatMap((family, f) =>
    Array.from({ length: perFamily }, (_, i) => {
      const n = f * perFamily + i;
      const product = PROP_PRODUCTS[(3 * n + offset) % PROP_PRODUCTS.length];
      return {
        name: `${kind}-${product}-${family}-1`,
        kind,
        product,
        backdrop: backdrops[(n + offset) % backdrops.length],
        propFamily: family,
        propMaterial: PROP_MATERIALS[(f + i + offset) % PROP_MATERIALS.length],
        seed: 1,
      };
    }),
  );
}

/** Shots without props: each product with its backdrop, seeds counting up for repeats. */
function withoutProps(kind: HardKind, shots: readonly [string, Backdrop][]): HardShotSpec[] {
  return shots.map(([product, backdrop], i) => {
    const seed = 1 + shots.slice(0, i).filter(([other]) => other === product).length;
    return { name: `${kind}-${product}-${seed}`, kind, product, backdrop, propFamily: null, propMaterial: null, seed };
  });
}

export const HARD_SHOT_SPECS: readonly HardShotSpec[] = [
  ...withProps('touching', 2, ['studio', 'gradient', 'light'], 0),
  ...withProps('overlapping', 2, ['studio', 'gradient', 'light'], 1),
  ...withProps('among', 2, ['tabletop'], 2),
  ...withProps('beside', 2, ['studio', 'gradient', 'light', 'tabletop'], 3),
  ...withoutProps('filling', [
    ['circuit-board', 'light'],
    ['circuit-board', 'studio'],
    ['circuit-board', 'light'],
    ['blue-circuit-board', 'studio'],
    ['blue-circuit-board', 'light'],
    ['keyboard', 'light'],
    ['keyboard', 'studio'],
    ['keyboard', 'light'],
  ]),
  ...withoutProps('white', [
    ['mug', 'light'],
    ['bottle', 'light'],
    ['ball', 'light'],
    ['sneaker', 'light'],
    ['carton', 'light'],
    ['backpack', 'light'],
    ['keyboard', 'light'],
    ['headphones', 'light'],
  ]),
  ...withoutProps('thin', [
    ['eyeglasses', 'studio'],
    ['eyeglasses', 'tabletop'],
    ['headphones', 'gradient'],
    ['headphones', 'light'],
    ['whisk', 'studio'],
    ['whisk', 'tabletop'],
    ['lamp', 'gradient'],
    ['lamp', 'light'],
    ['chair', 'studio'],
    ['chair', 'tabletop'],
  ]),
];
