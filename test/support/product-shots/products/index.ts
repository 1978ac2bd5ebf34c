import { backpack } from './backpack';
import { ball } from './ball';
import { bottle } from './bottle';
import { carton } from './carton';
import { chair } from './chair';
import { lamp } from './lamp';
import { mug } from './mug';
import type { ProductDrawing } from './product';
import { sneaker } from './sneaker';

export type { Palette, ProductDrawing } from './product';

export const PRODUCT_DRAWINGS: Readonly<Record<string, ProductDrawing>> = {
  bottle,
  carton,
  mug,
  sneaker,
  ball,
  lamp,
  chair,
  backpack,
};
