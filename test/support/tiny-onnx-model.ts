import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { onnx } from 'onnx-proto';

/**
 * A tiny segmentation graph whose answer is a known function of its input, for the specs of the
 * model session and its checks: the first channel of the input tensor (channel 0 in NCHW, the
 * last axis's first entry in NHWC), times `gain` plus `bias` (logits), optionally cast to float16.
 * So map = sigmoid(gain * x0 + bias), where x0 is the normalised first channel fed.
 */
export interface TinyModelOptions {
  inputName?: string;
  outputName?: string;
  layout?: 'nchw' | 'nhwc';
  /** A fixed square side, or `dynamic` for symbolic height and width. */
  size: number | 'dynamic';
  outputType?: 'float32' | 'float16';
  gain?: number;
  bias?: number;
}

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const FLOAT16 = onnx.TensorProto.DataType.FLOAT16;
const INT64 = onnx.TensorProto.DataType.INT64;

export function tinyModel(options: TinyModelOptions): Uint8Array {
  const { inputName = 'pixels', outputName = 'mask', layout = 'nchw', size, outputType = 'float16' } = options;
  const side = (param: string) => (size === 'dynamic' ? { dimParam: param } : { dimValue: size });
  const dims = (channels: number) =>
    layout === 'nchw'
      ? [{ dimValue: 1 }, { dimValue: channels }, side('h'), side('w')]
      : [{ dimValue: 1 }, side('h'), side('w'), { dimValue: channels }];
  const value = (name: string, elemType: number, channels: number) => ({
    name,
    type: { tensorType: { elemType, shape: { dim: dims(channels) } } },
  });
  const int64s = (name: string, values: number[]) => ({
    name,
    dataType: INT64,
    dims: [values.length],
    int64Data: values,
  });
  const float = (name: string, number: number) => ({ name, dataType: FLOAT, dims: [], floatData: [number] });
  const cast = outputType === 'float16';
  const graph = {
    name: 'tiny',
    node: [
      { opType: 'Slice', input: [inputName, 'starts', 'ends', 'axes'], output: ['first'] },
      { opType: 'Mul', input: ['first', 'gain'], output: ['scaled'] },
      { opType: 'Add', input: ['scaled', 'bias'], output: [cast ? 'logits' : outputName] },
      ...(cast
        ? [
            {
              opType: 'Cast',
              input: ['logits'],
              output: [outputName],
              attribute: [{ name: 'to', type: 2, i: FLOAT16 }],
            },
          ]
        : []),
    ],
    initializer: [
      int64s('starts', [0]),
      int64s('ends', [1]),
      int64s('axes', [layout === 'nchw' ? 1 : 3]),
      float('gain', options.gain ?? 1),
      float('bias', options.bias ?? 0),
    ],
    input: [value(inputName, FLOAT, 3)],
    output: [value(outputName, cast ? FLOAT16 : FLOAT, 1)],
  };
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}

/** Writes the tiny model into `dir` and a manifest beside it; answers both paths and the model's sha256. */
export async function writeTinyModel(
  dir: string,
  options: TinyModelOptions,
  manifest: (weights: { file: string; sha256: string }) => Record<string, unknown>,
): Promise<{ manifestPath: string; weightsPath: string; sha256: string }> {
  const bytes = tinyModel(options);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const weightsPath = path.join(dir, 'tiny.onnx');
  const manifestPath = path.join(dir, 'tiny.json');
  await writeFile(weightsPath, bytes);
  await writeFile(manifestPath, JSON.stringify(manifest({ file: 'tiny.onnx', sha256 })));
  return { manifestPath, weightsPath, sha256 };
}
