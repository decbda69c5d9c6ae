// Builds the small ONNX models the attention benchmark runs in
// onnxruntime-web, encoded by hand (protobuf wire format) so the benchmark
// needs no model files and no extra packages.

const enc = new TextEncoder();

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
const vint = (field, n) => [...key(field, 0), ...varint(n)];
const bytes = (field, b) => [...key(field, 2), ...varint(b.length), ...b];
const str = (field, s) => bytes(field, [...enc.encode(s)]);

// TypeProto for a float tensor of the given shape.
const tensorType = (dims) =>
  bytes(1, [...vint(1, 1), ...bytes(2, dims.flatMap((d) => bytes(1, vint(1, d))))]);
const valueInfo = (name, dims, elem = 1) => [...str(1, name), ...bytes(2, tensorTypeOf(dims, elem))];
function tensorTypeOf(dims, elem) {
  return bytes(1, [...vint(1, elem), ...bytes(2, dims.flatMap((d) => bytes(1, vint(1, d))))]);
}
const intAttr = (name, v) => [...str(1, name), ...vint(3, v), ...vint(20, 2)];
const floatAttr = (name, v) => {
  const f = new Uint8Array(new Float32Array([v]).buffer);
  return [...str(1, name), ...key(2, 5), ...f, ...vint(20, 1)];
};
const intsAttr = (name, vs) => [...str(1, name), ...vs.flatMap((v) => vint(8, v)), ...vint(20, 7)];
const node = (op, inputs, outputs, attrs = [], name = op) => [
  ...inputs.flatMap((i) => str(1, i)),
  ...outputs.flatMap((o) => str(2, o)),
  ...str(3, name),
  ...str(4, op),
  ...attrs.flatMap((a) => bytes(5, a)),
];

function model(nodes, inputs, outputs, opset) {
  const graph = [
    ...nodes.flatMap((n) => bytes(1, n)),
    ...str(2, 'g'),
    ...inputs.flatMap(([n, d, e]) => bytes(11, valueInfo(n, d, e))),
    ...outputs.flatMap(([n, d]) => bytes(12, valueInfo(n, d))),
  ];
  return new Uint8Array([...vint(1, 10), ...bytes(8, [...str(1, ''), ...vint(2, opset)]), ...bytes(7, graph)]);
}

/** The fused ONNX `Attention` op (opset 23), causal: Q, K, V [1, H, T, D] -> Y. */
export function fusedAttention(H, T, D) {
  const s = [1, H, T, D];
  return model([node('Attention', ['Q', 'K', 'V'], ['Y'], [intAttr('is_causal', 1)])],
    [['Q', s], ['K', s], ['V', s]], [['Y', s]], 23);
}

/** MatMul / scale / mask / Softmax / MatMul: Q, K, V [1, H, T, D], mask [T, T] -> Y. */
export function unfusedAttention(H, T, D) {
  const s = [1, H, T, D];
  return model([
    node('Transpose', ['K'], ['Kt'], [intsAttr('perm', [0, 1, 3, 2])]),
    node('MatMul', ['Q', 'Kt'], ['S'], [], 'scores'),
    node('Mul', ['S', 'scale'], ['S2']),
    node('Add', ['S2', 'mask'], ['S3']),
    node('Softmax', ['S3'], ['P'], [intAttr('axis', 3)]),
    node('MatMul', ['P', 'V'], ['Y'], [], 'values'),
  ], [['Q', s], ['K', s], ['V', s], ['scale', [1]], ['mask', [T, T]]], [['Y', s]], 17);
}



/**
 * ONNX `RotaryEmbedding` (opset 23): X [1, H, T, D], cos/sin caches [T, D/2],
 * position_ids [1, T] (int64) -> Y. interleaved = 0 is the `half` layout.
 */
export function rotaryEmbedding(H, T, D, interleaved) {
  const s = [1, H, T, D];
  return model([node('RotaryEmbedding', ['X', 'cos', 'sin', 'pos'], ['Y'], [intAttr('interleaved', interleaved ? 1 : 0)])],
    [['X', s], ['cos', [T, D / 2]], ['sin', [T, D / 2]], ['pos', [1, T], 7]], [['Y', s]], 23);
}
