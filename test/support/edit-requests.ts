import type { EditRequest } from '../../src/modules/tools/image-editing/edit-request';

/** An edit that only resizes (or upscales): no cut-out, no adjustments. */
export const resizeOnly = (resize: EditRequest['resize']): EditRequest => ({
  resize,
  cutout: null,
  light: false,
  color: false,
  polish: false,
  unsupported: null,
});
