import { EDIT_VARIANTS, type EditRequest } from '../../src/modules/tools/image-editing/edit-request';
import { DEFAULT_FILE_CHOICES } from '../../src/modules/tools/tool-runner';

/** An edit that only resizes (or upscales): no cut-out, no adjustments, png, the first variant. */
export const resizeOnly = (resize: EditRequest['resize']): EditRequest => ({
  resize,
  cutout: null,
  light: false,
  color: false,
  polish: false,
  format: 'png',
  variant: EDIT_VARIANTS[0],
  unsupported: null,
  file: DEFAULT_FILE_CHOICES,
});
