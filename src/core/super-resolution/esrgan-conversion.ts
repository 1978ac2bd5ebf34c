import { onnx } from 'onnx-proto';

/**
 * The one-off conversion of an UpscalerJS ESRGAN model (a TensorFlow.js Keras "layers-model":
 * model.json and one float32 weights shard) into an ONNX graph for onnxruntime's CPU provider.
 * Only esrgan-model.ts calls it, when it prepares a model file.
 *
 * The models are small residual dense networks made of five Keras layer kinds, each with an exact
 * ONNX counterpart: Conv2D ('same' or 'valid', stride 1, optional ReLU), Activation (ReLU),
 * Concatenate, Add and a nearest-neighbour UpSampling2D. Anything else is refused rather than
 * guessed at. Keras works channels-last (NHWC, kernels HWIO); the graph is written channels-first
 * (NCHW, kernels OIHW), as onnxruntime's CPU convolutions are, and the session builds and reads its
 * tensors planar, so no transpose runs inside the graph. Pixels go in and come out as 0..255 floats.
 */

/** The graph's input and output names. */
export const ESRGAN_INPUT = 'LR';
export const ESRGAN_OUTPUT = 'SR';

const FLOAT: number = onnx.TensorProto.DataType.FLOAT;
const OPSET = 17;

/** The parts of a TensorFlow.js model.json this conversion reads. */
interface LayersModelJson {
  format?: string;
  modelTopology: { model_config: { class_name: string; config: KerasGraph } };
  weightsManifest: { paths: string[]; weights: WeightSpec[] }[];
}

interface KerasGraph {
  layers: KerasLayer[];
  input_layers: [string, number, number][];
  output_layers: [string, number, number][];
}

interface KerasLayer {
  class_name: string;
  name: string;
  config: Record<string, unknown>;
  inbound_nodes: [string, number, number, object][][];
}

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
}

/** A Keras weight as read from the shard: its shape and float32 values. */
interface Weight {
  shape: number[];
  values: Float32Array;
}

/** The scale an ESRGAN model enlarges by, read from its single UpSampling2D layer. */
export function upsamplingOf(modelJson: Buffer): number {
  const sizes = parsed(modelJson)
    .modelTopology.model_config.config.layers.filter((layer) => layer.class_name === 'UpSampling2D')
    .map((layer) => upsamplingSize(layer));
  if (sizes.length !== 1) throw new Error(`An ESRGAN model has one upsampling layer, not ${sizes.length}`);
  return sizes[0];
}

/** The ONNX model (protobuf bytes) equivalent to the Keras model in `modelJson` with the weights in `shard`. */
export function convertEsrgan(modelJson: Buffer, shard: Buffer): Uint8Array {
  const json = parsed(modelJson);
  const { class_name: kind, config: keras } = json.modelTopology.model_config;
  if (kind !== 'Functional' && kind !== 'Model') throw new Error(`The ESRGAN model is a Keras ${kind}`);
  if (keras.input_layers.length !== 1 || keras.output_layers.length !== 1) {
    throw new Error('The ESRGAN model must have one input and one output');
  }
  const weights = weightsOf(json, shard);
  const graph = new GraphBuilder();
  for (const layer of keras.layers) graph.add(layer, weights);
  const input = keras.input_layers[0][0];
  const output = keras.output_layers[0][0];
  if (input !== ESRGAN_INPUT || output !== ESRGAN_OUTPUT) {
    throw new Error(`The ESRGAN model's input and output are ${input} and ${output}`);
  }
  return onnx.ModelProto.encode({
    irVersion: 8,
    producerName: 'image-job-service esrgan-conversion',
    opsetImport: [{ domain: '', version: OPSET }],
    graph: {
      name: 'esrgan',
      node: graph.nodes,
      initializer: graph.initializers,
      input: [imageValue(ESRGAN_INPUT, 'height', 'width')],
      output: [imageValue(ESRGAN_OUTPUT, 'output_height', 'output_width')],
    },
  }).finish();
}

function parsed(modelJson: Buffer): LayersModelJson {
  const json = JSON.parse(modelJson.toString('utf8')) as LayersModelJson;
  if (json.format !== 'layers-model') throw new Error(`The ESRGAN model is a ${json.format}, not a layers-model`);
  return json;
}

/** Every weight of the shard by name: the manifest lists them in the order their values follow one another. */
function weightsOf(json: LayersModelJson, shard: Buffer): Map<string, Weight> {
  if (json.weightsManifest.length !== 1 || json.weightsManifest[0].paths.length !== 1) {
    throw new Error('The ESRGAN weights must be one group in one shard');
  }
  const weights = new Map<string, Weight>();
  let offset = 0;
  for (const spec of json.weightsManifest[0].weights) {
    if (spec.dtype !== 'float32') throw new Error(`The ESRGAN weight ${spec.name} is ${spec.dtype}, not float32`);
    const bytes = spec.shape.reduce((product, side) => product * side, 1) * 4;
    if (offset + bytes > shard.length) throw new Error(`The ESRGAN shard ends inside ${spec.name}`);
    // A copy: the shard's bytes need not be aligned for a Float32Array view.
    const values = new Float32Array(new Uint8Array(shard.subarray(offset, offset + bytes)).buffer);
    weights.set(spec.name, { shape: spec.shape, values });
    offset += bytes;
  }
  if (offset !== shard.length) throw new Error('The ESRGAN shard holds more than its manifest lists');
  return weights;
}

/** The graph's nodes and initializers, built layer by layer in the Keras config's order (already topological). */
class GraphBuilder {
  readonly nodes: onnx.INodeProto[] = [];
  readonly initializers: onnx.ITensorProto[] = [];

  add(layer: KerasLayer, weights: Map<string, Weight>): void {
    const inputs = layer.inbound_nodes.flatMap((node) => node.map(([name]) => name));
    const { name, config } = layer;
    switch (layer.class_name) {
      case 'InputLayer':
        return expectShape(layer);
      case 'Conv2D':
        return this.convolution(name, single(layer, inputs), config, weights);
      case 'Activation':
        return this.activation(name, single(layer, inputs), config.activation);
      case 'Concatenate':
        if (config.axis !== 3 && config.axis !== -1) {
          throw unsupported(layer, `concatenation on axis ${String(config.axis)}`);
        }
        this.nodes.push(node('Concat', inputs, name, [int('axis', 1)]));
        return;
      case 'Add':
        if (inputs.length !== 2) throw unsupported(layer, `an addition of ${inputs.length} tensors`);
        this.nodes.push(node('Add', inputs, name));
        return;
      case 'UpSampling2D':
        return this.upsampling(name, single(layer, inputs), upsamplingSize(layer));
      default:
        throw unsupported(layer, 'its kind');
    }
  }

  /** Keras HWIO kernels become ONNX OIHW; 'same' pads an odd kernel by half its size on every side. */
  private convolution(
    name: string,
    input: string,
    config: Record<string, unknown>,
    weights: Map<string, Weight>,
  ): void {
    const [kh, kw] = config.kernel_size as number[];
    const strides = config.strides as number[];
    const dilation = config.dilation_rate as number[];
    if (config.data_format !== 'channels_last' || strides.some((s) => s !== 1) || dilation.some((d) => d !== 1)) {
      throw new Error(`The ESRGAN convolution ${name} is not a stride-1, undilated, channels-last one`);
    }
    if (config.padding === 'same' && (kh % 2 === 0 || kw % 2 === 0)) {
      throw new Error(`The ESRGAN convolution ${name} has an even kernel with 'same' padding`);
    }
    const pad = config.padding === 'same' ? [(kh - 1) / 2, (kw - 1) / 2] : [0, 0];
    if (config.padding !== 'same' && config.padding !== 'valid') {
      throw new Error(`The ESRGAN convolution ${name} has ${String(config.padding)} padding`);
    }
    const kernel = weights.get(`${name}/kernel`);
    const bias = weights.get(`${name}/bias`);
    if (!kernel || !bias || config.use_bias !== true) throw new Error(`The ESRGAN convolution ${name} lacks weights`);
    const [h, w, inChannels, outChannels] = kernel.shape;
    if (h !== kh || w !== kw || bias.shape[0] !== outChannels || config.filters !== outChannels) {
      throw new Error(`The ESRGAN convolution ${name}'s weights do not match its configuration`);
    }
    this.initializers.push(tensor(`${name}/kernel`, [outChannels, inChannels, kh, kw], hwioToOihw(kernel)));
    this.initializers.push(tensor(`${name}/bias`, [outChannels], bias.values));
    const activated = config.activation !== 'linear';
    const output = activated ? `${name}/linear` : name;
    this.nodes.push(
      node('Conv', [input, `${name}/kernel`, `${name}/bias`], output, [
        ints('kernel_shape', kh, kw),
        ints('pads', pad[0], pad[1], pad[0], pad[1]),
        ints('strides', 1, 1),
        ints('dilations', 1, 1),
      ]),
    );
    if (activated) this.activation(name, output, config.activation);
  }

  private activation(name: string, input: string, activation: unknown): void {
    if (activation === 'relu') this.nodes.push(node('Relu', [input], name));
    else if (activation === 'linear') this.nodes.push(node('Identity', [input], name));
    else throw new Error(`The ESRGAN layer ${name} has a ${String(activation)} activation`);
  }

  /** Keras's nearest UpSampling2D repeats each pixel `factor` times along both axes: a floor-mode nearest Resize. */
  private upsampling(name: string, input: string, factor: number): void {
    const scales = `${name}/scales`;
    this.initializers.push(tensor(scales, [4], new Float32Array([1, 1, factor, factor])));
    this.nodes.push(
      node('Resize', [input, '', scales], name, [
        text('mode', 'nearest'),
        text('coordinate_transformation_mode', 'asymmetric'),
        text('nearest_mode', 'floor'),
      ]),
    );
  }
}

function upsamplingSize(layer: KerasLayer): number {
  const size = layer.config.size as number[];
  if (layer.config.interpolation !== 'nearest' || size.length !== 2 || size[0] !== size[1] || !(size[0] > 1)) {
    throw unsupported(layer, 'anything but an equal nearest-neighbour upsampling');
  }
  return size[0];
}

function expectShape(layer: KerasLayer): void {
  const shape = layer.config.batch_input_shape as (number | null)[];
  if (shape.length !== 4 || shape[3] !== 3) throw unsupported(layer, `an input of shape ${JSON.stringify(shape)}`);
}

function single(layer: KerasLayer, inputs: string[]): string {
  if (inputs.length !== 1) throw unsupported(layer, `${inputs.length} inputs`);
  return inputs[0];
}

const unsupported = (layer: KerasLayer, what: string) =>
  new Error(`The ESRGAN layer ${layer.name} (${layer.class_name}) is not supported: ${what}`);

/** [h][w][in][out] to [out][in][h][w]. */
function hwioToOihw({ shape: [h, w, inChannels, outChannels], values }: Weight): Float32Array {
  const result = new Float32Array(values.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      for (let i = 0; i < inChannels; i++) {
        for (let o = 0; o < outChannels; o++) {
          result[((o * inChannels + i) * h + y) * w + x] = values[((y * w + x) * inChannels + i) * outChannels + o];
        }
      }
    }
  }
  return result;
}

function tensor(name: string, dims: number[], values: Float32Array): onnx.ITensorProto {
  return { name, dims, dataType: FLOAT, rawData: new Uint8Array(values.buffer, values.byteOffset, values.byteLength) };
}

function node(opType: string, input: string[], output: string, attribute: onnx.IAttributeProto[] = []) {
  return { opType, name: output, input, output: [output], attribute };
}

function int(name: string, value: number): onnx.IAttributeProto {
  return { name, type: onnx.AttributeProto.AttributeType.INT, i: value };
}

function ints(name: string, ...values: number[]): onnx.IAttributeProto {
  return { name, type: onnx.AttributeProto.AttributeType.INTS, ints: values };
}

function text(name: string, value: string): onnx.IAttributeProto {
  return { name, type: onnx.AttributeProto.AttributeType.STRING, s: Buffer.from(value) };
}

/** A float NCHW image of three channels with named (free) height and width. */
function imageValue(name: string, height: string, width: string): onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: FLOAT,
        shape: { dim: [{ dimValue: 1 }, { dimValue: 3 }, { dimParam: height }, { dimParam: width }] },
      },
    },
  };
}
