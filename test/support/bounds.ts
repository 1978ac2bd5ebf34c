import type { PixelBounds } from '../../src/engine/mask/alpha-mask';

/** Whether `inner` lies wholly within `outer`. */
export const inside = (inner: PixelBounds, outer: PixelBounds) =>
  inner.left >= outer.left &&
  inner.top >= outer.top &&
  inner.left + inner.width <= outer.left + outer.width &&
  inner.top + inner.height <= outer.top + outer.height;

/** Whether the two rectangles share any pixel. */
export const overlap = (a: PixelBounds, b: PixelBounds) =>
  a.left < b.left + b.width && b.left < a.left + a.width && a.top < b.top + b.height && b.top < a.top + a.height;

/** `value`, or a failure naming `what` when it is missing. */
export function must<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`expected ${what}`);
  return value;
}
