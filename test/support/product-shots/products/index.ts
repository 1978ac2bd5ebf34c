import { backpack } from './backpack';
import { ball } from './ball';
import { bottle } from './bottle';
import { carton } from './carton';
import { chair } from './chair';
import { blueCircuitBoard, circuitBoard } from './circuit-board';
import { eyeglasses } from './eyeglasses';
import { headphones } from './headphones';
import { keyboard } from './keyboard';
import { lamp } from './lamp';
import { mug } from './mug';
import type { ProductDrawing } from './product';
import { sneaker } from './sneaker';
import { whisk } from './whisk';

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

/**
 * Drawings made for the hard cases (frame-filling boards and keyboards, thin frames, wires and
 * bands), kept apart from PRODUCT_DRAWINGS so that the original shots and their list stay as they are.
 */
export const HARD_CASE_DRAWINGS: Readonly<Record<string, ProductDrawing>> = {
  'circuit-board': circuitBoard,
  'blue-circuit-board': blueCircuitBoard,
  keyboard,
  eyeglasses,
  headphones,
  whisk,
};
