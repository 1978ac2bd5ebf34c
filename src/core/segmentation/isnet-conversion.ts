import { onnx } from 'onnx-proto';
import { halfBitsToFloat } from './half-float';

/**
 * The one-off conversion of the exported ISNet graph for onnxruntime's CPU provider at a chosen
 * input size. Only isnet-model.ts calls it, when it prepares the model file.
 */

/** The input side the graph was exported at: its Resize target sizes are baked in for it. */
export const EXPORTED_INPUT_SIZE = 1024;
/** The graph's final probability map; its other outputs are side maps and features used only in training. */
const PROBABILITY_OUTPUT = 'output';

/** ONNX's data type codes, as plain numbers: the decoded model's fields are numbers, not the enum. */
const FLOAT: number = onnx.TensorProto.DataType.FLOAT;
const FLOAT16: number = onnx.TensorProto.DataType.FLOAT16;
const INT64: number = onnx.TensorProto.DataType.INT64;

/** A decoded graph: decoding builds class instances, whose fields are never undefined. */
interface Graph {
  node: onnx.NodeProto[];
  initializer: onnx.TensorProto[];
  input: onnx.ValueInfoProto[];
  output: onnx.ValueInfoProto[];
  valueInfo: onnx.ValueInfoProto[];
}

/**
 * The exported graph, fp16 with its Resize nodes wrapped in casts to fp32 and sizes fixed for
 * 1024 px, turned into an fp32 graph for `inputSize`. On onnxruntime's CPU provider the fp32 graph
 * ran faster than the fp16 one and gave the same mask (IoU 1.0 at 1024 px), and a smaller input is
 * what makes an inference affordable on a small CPU. fp32 weights double the file (~176 MB).
 */
export function convertForCpu(source: Buffer, inputSize: number): Uint8Array {
  const model = onnx.ModelProto.decode(source);
  const graph = model.graph as Graph | null | undefined;
  if (!graph) throw new Error('The ISNet model has no graph');
  keepOnlyProbabilityOutput(graph);
  widenHalfTensors(graph);
  removeCasts(graph);
  scaleResizeTargets(graph, inputSize);
  setImageShapes(graph, inputSize);
  // The recorded intermediate types and shapes are fp16 and 1024 px; onnxruntime infers them again.
  graph.valueInfo = [];
  return onnx.ModelProto.encode(model).finish();
}

/**
 * Drops the side outputs (five more full-size maps and six feature maps, up to 64 MB each at
 * 1024 px) and the nodes only they need: onnxruntime must otherwise compute them and keep them
 * alive to the end of every run.
 */
function keepOnlyProbabilityOutput(graph: Graph): void {
  const output = graph.output.find((value) => value.name === PROBABILITY_OUTPUT);
  if (!output) throw new Error(`The ISNet model has no output named ${PROBABILITY_OUTPUT}`);
  graph.output = [output];

  const producers = producersByOutput(graph);
  const needed = new Set<onnx.NodeProto>();
  const pending = [PROBABILITY_OUTPUT];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const producer = producers.get(name);
    if (!producer || needed.has(producer)) continue;
    needed.add(producer);
    pending.push(...producer.input.filter(Boolean));
  }
  graph.node = graph.node.filter((node) => needed.has(node));

  const used = new Set(graph.node.flatMap((node) => node.input));
  graph.initializer = graph.initializer.filter((tensor) => used.has(tensor.name));
}

/** fp16 weights and constants become fp32, exactly: every half value has a float value. */
function widenHalfTensors(graph: Graph): void {
  const constants = graph.node
    .filter((node) => node.opType === 'Constant')
    .map((node) => attribute(node, 'value').t as onnx.TensorProto);
  for (const tensor of [...graph.initializer, ...constants]) {
    if (tensor.dataType !== FLOAT16) continue;
    if (tensor.rawData.length === 0)
      throw new Error(`The ISNet tensor ${tensor.name} keeps its fp16 values outside raw_data`);
    tensor.rawData = halfToFloat(tensor.rawData);
    tensor.dataType = FLOAT;
  }
}

/**
 * Every Cast in the exported graph converts between fp16 and fp32 (around the Resize nodes, which
 * the fp16 export left in fp32, and at the graph's ends); in an fp32 graph each is an identity, so
 * it is removed and its consumers read its input. A cast that produced a graph output hands that
 * name to the node before it, so the model's input and output names stay as exported.
 */
function removeCasts(graph: Graph): void {
  const casts = graph.node.filter((node) => node.opType === 'Cast');
  const graphOutputs = new Set(graph.output.map((value) => value.name));
  const renamed = new Map<string, string>();
  for (const cast of casts) {
    const to = Number(attribute(cast, 'to').i);
    if (to !== FLOAT && to !== FLOAT16) throw new Error(`The ISNet cast ${cast.name} converts to data type ${to}`);
    const [from, into] = [cast.input[0], cast.output[0]];
    if (!graphOutputs.has(into)) renamed.set(into, from);
    else if (renamed.has(from)) throw new Error(`The ISNet tensor ${from} is cast to two graph outputs`);
    else renamed.set(from, into);
  }
  const resolve = (name: string): string => {
    for (let next = renamed.get(name); next !== undefined; next = renamed.get(name)) name = next;
    return name;
  };
  graph.node = graph.node.filter((node) => node.opType !== 'Cast');
  for (const node of graph.node) {
    node.input = node.input.map(resolve);
    node.output = node.output.map(resolve);
  }
}

/**
 * Each Resize's target size is `Concat(Slice(Shape(x)), Constant[h, w])`, the constant traced at
 * 1024 px. Every level of the network halves the side with ceil rounding (a stride-2 convolution,
 * then ceil-mode pooling), so a level traced as `v` px is `ceil(inputSize * v / 1024)` px.
 */
function scaleResizeTargets(graph: Graph, inputSize: number): void {
  const producers = producersByOutput(graph);
  const scaled = new Set<onnx.TensorProto>();
  for (const resize of graph.node.filter((node) => node.opType === 'Resize')) {
    const sizes = producers.get(resize.input[3] ?? '');
    const traced = (sizes?.opType === 'Concat' ? sizes.input : [])
      .map((name) => producers.get(name))
      .filter((node): node is onnx.NodeProto => node?.opType === 'Constant');
    if (traced.length !== 1)
      throw new Error(`The ISNet resize ${resize.name} does not take its size from one constant`);
    const tensor = attribute(traced[0], 'value').t as onnx.TensorProto;
    if (scaled.has(tensor)) continue;
    const view = new DataView(tensor.rawData.buffer, tensor.rawData.byteOffset, tensor.rawData.byteLength);
    if (tensor.dataType !== INT64 || view.byteLength !== 16) {
      throw new Error(`The ISNet resize ${resize.name} has an unexpected size constant`);
    }
    const side = (at: number) =>
      BigInt(Math.ceil((inputSize * Number(view.getBigInt64(at, true))) / EXPORTED_INPUT_SIZE));
    const resized = new DataView(new ArrayBuffer(16));
    resized.setBigInt64(0, side(0), true);
    resized.setBigInt64(8, side(8), true);
    tensor.rawData = new Uint8Array(resized.buffer);
    scaled.add(tensor);
  }
}

/** The input and the output are declared at `inputSize` (they were declared at 1024 px, fp32 already). */
function setImageShapes(graph: Graph, inputSize: number): void {
  for (const value of [...graph.input, ...graph.output]) {
    const dims = value.type?.tensorType?.shape?.dim ?? [];
    if (value.type?.tensorType?.elemType !== FLOAT || dims.length !== 4) {
      throw new Error(`The ISNet value ${value.name} is not an fp32 image`);
    }
    dims[2] = { dimValue: inputSize };
    dims[3] = { dimValue: inputSize };
  }
}

function producersByOutput(graph: Graph): Map<string, onnx.NodeProto> {
  return new Map(graph.node.flatMap((node) => node.output.map((name) => [name, node] as const)));
}

function attribute(node: onnx.NodeProto, name: string): onnx.IAttributeProto {
  const found = node.attribute.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`The ISNet node ${node.name} has no ${name} attribute`);
  return found;
}

/** Little-endian fp16 bytes (ONNX raw_data) to little-endian fp32 bytes. */
function halfToFloat(half: Uint8Array): Uint8Array {
  const bits = new Uint16Array(half.length / 2);
  for (let i = 0; i < bits.length; i++) bits[i] = half[2 * i] | (half[2 * i + 1] << 8);
  return new Uint8Array(halfBitsToFloat(bits).buffer);
}
