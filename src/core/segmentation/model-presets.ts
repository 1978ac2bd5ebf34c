/**
 * Known model families, so a manifest names its family and its weights and inherits the rest.
 * Each constant was checked against the family's own inference code, named beside it; a manifest
 * overrides any field. A preset leaves `input.name` out where the family's exports disagree on it
 * (the manifest must then say it: the start check reads the graph's real name).
 */

/** ImageNet's channel statistics, which torchvision's `Normalize` in most of these families uses. */
const IMAGENET_MEAN = [0.485, 0.456, 0.406];
const IMAGENET_STD = [0.229, 0.224, 0.225];

/** What a preset fills in: a manifest's fields, each part optional. */
export interface PresetFields {
  version?: string;
  licence: string;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
}

/**
 * BiRefNet (ZhengPeng7/BiRefNet): the official export (tutorials/BiRefNet_pth2onnx.ipynb) takes
 * `input_image` 1x3x1024x1024, RGB /255 with ImageNet mean and std (torchvision Resize, bilinear,
 * in its inference code), and answers logits in `output_image`. Its own inference (inference.py,
 * the model card's example) applies the sigmoid and uses the probabilities as they are; rembg's
 * birefnet sessions min-max stretch them too, which the model's authors do not.
 */
const BIREFNET: PresetFields = {
  licence: 'MIT',
  input: {
    name: 'input_image',
    layout: 'nchw',
    size: 1024,
    resize: 'bilinear',
    colour_order: 'rgb',
    scaling: 'unit',
    mean: IMAGENET_MEAN,
    std: IMAGENET_STD,
  },
  output: { tensor: 0, type: 'float32', activation: 'sigmoid', min_max_stretch: false },
};

export const PRESETS = {
  /**
   * The shipped ISNet general-use model exactly as this service has always run it: rembg's
   * `isnet-general-use` session (rembg/sessions/base.py `normalize`: RGB, Lanczos to a square,
   * divided by the image's maximum, mean 0.5, std 1.0, NCHW; dis_general_use.py: output 0, min-max
   * stretched). The graph holds the sigmoid. Input named `input` in the imgly and rembg exports.
   */
  isnet: {
    licence: 'Apache-2.0 (DIS code); weights published without a separate licence statement',
    input: {
      name: 'input',
      layout: 'nchw',
      size: 1024,
      resize: 'lanczos3',
      colour_order: 'rgb',
      scaling: 'image_max',
      mean: [0.5, 0.5, 0.5],
      std: [1, 1, 1],
    },
    output: { tensor: 0, type: 'float32', activation: 'none', min_max_stretch: true },
  },
  birefnet: BIREFNET,
  /** BiRefNet_lite: the same export and processing as BiRefNet at 1024 (the 2K variant takes other sizes). */
  'birefnet-lite': BIREFNET,
  /**
   * BEN2 Base (PramaLLC/BEN2, BEN2.py): `rgb_loader_refiner` resizes to 1024x1024 with Lanczos,
   * `img_transform32` is ToTensor (/255) and ImageNet Normalize; `forward` ends in a sigmoid and
   * `postprocess_image` min-max stretches. export.py names no input, so the graph's input name
   * depends on the exporting torch version: the manifest says it.
   */
  ben2: {
    licence: 'MIT (BEN2 Base; the full BEN2 is sold commercially)',
    input: {
      layout: 'nchw',
      size: 1024,
      resize: 'lanczos3',
      colour_order: 'rgb',
      scaling: 'unit',
      mean: IMAGENET_MEAN,
      std: IMAGENET_STD,
    },
    output: { tensor: 0, type: 'float32', activation: 'none', min_max_stretch: true },
  },
  /**
   * Bria RMBG-1.4 (briaai/RMBG-1.4, utilities.py): the ISNet architecture; bilinear to 1024, /255,
   * mean 0.5 std 1.0; the output min-max stretched. Its ONNX export's input name is the manifest's to say.
   */
  'rmbg-1.4': {
    licence: 'bria-rmbg-1.4: NON-COMMERCIAL use only; commercial use needs an agreement with Bria',
    input: {
      layout: 'nchw',
      size: 1024,
      resize: 'bilinear',
      colour_order: 'rgb',
      scaling: 'unit',
      mean: [0.5, 0.5, 0.5],
      std: [1, 1, 1],
    },
    output: { tensor: 0, type: 'float32', activation: 'none', min_max_stretch: true },
  },
  /**
   * U2-Net (xuebinqin/U-2-Net u2net_test.py and rembg/sessions/u2net.py): 320x320, divided by the
   * image's maximum (ToTensorLab), ImageNet mean and std; output 0 is sigmoid(d0), min-max
   * stretched (normPRED). rembg's export is fed by position, so the manifest names its input.
   */
  u2net: {
    licence: 'Apache-2.0',
    input: {
      layout: 'nchw',
      size: 320,
      resize: 'lanczos3',
      colour_order: 'rgb',
      scaling: 'image_max',
      mean: IMAGENET_MEAN,
      std: IMAGENET_STD,
    },
    output: { tensor: 0, type: 'float32', activation: 'none', min_max_stretch: true },
  },
} satisfies Record<string, PresetFields>;

export type PresetName = keyof typeof PRESETS;

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
