/** A segmentation model's per-pixel subject probability, 0..1, row-major, at the model's own size. */
export interface ProbabilityMap {
  data: Float32Array;
  width: number;
  height: number;
}
