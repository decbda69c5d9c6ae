// Reading one tensor of a safetensors file (8 bytes of little-endian header
// length, a JSON header, then the raw data), for the Worker's `tensor` call.

/** One float32 tensor of a safetensors file, copied out (its own buffer, so it can be transferred). */
export function readTensor(bytes: Uint8Array, name: string): { shape: number[]; data: Float32Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  const t = header[name];
  if (!t || t.dtype !== 'F32') throw new Error(`no float32 tensor ${name}`);
  const [a, b] = t.data_offsets;
  return { shape: t.shape, data: new Float32Array(bytes.slice(8 + n + a, 8 + n + b).buffer) };
}
