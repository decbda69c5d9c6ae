// Tensors printed the way PyTorch's print() shows them with
// torch.set_printoptions(precision=4, sci_mode=False, linewidth=200):
// float tensors whose values are all whole numbers print as "-4.", others
// with 4 decimals; every element is right-aligned to the widest one; the
// sign of zero is kept ("-0."), as Python keeps it. Our own implementation
// of that format, so the page's output can be read next to the articles'.

export interface TorchPrintOptions {
  /** Decimals of a non-integer float tensor. Default 4. */
  precision?: number;
  /** An integer dtype (int64): elements print as plain integers. */
  integer?: boolean;
  /** 1-D only: longer tensors print `edgeItems` elements at each end around "...". */
  threshold?: number;
  edgeItems?: number;
}

/** `torch.Size([2, 4, 8])`. */
export function torchSize(shape: readonly number[]): string {
  return `torch.Size([${shape.join(', ')}])`;
}

function isWhole(v: number): boolean {
  return !Number.isFinite(v) || Math.ceil(v) === v;
}

function special(v: number): string | undefined {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  return undefined;
}

/** One element as Python formats it (negative zero keeps its sign). */
function element(v: number, intMode: boolean, o: TorchPrintOptions): string {
  const s = special(v);
  if (s !== undefined) return s;
  if (o.integer) return String(v);
  const neg = v < 0 || Object.is(v, -0);
  const body = intMode ? `${Math.abs(v).toFixed(0)}.` : Math.abs(v).toFixed(o.precision ?? 4);
  return neg ? `-${body}` : body;
}

/** `tensor([[...], [...]])` of row-major `data` with `shape` (1-D, 2-D or 3-D). */
export function formatTensor(data: ArrayLike<number>, shape: readonly number[], o: TorchPrintOptions = {}): string {
  const n = shape.reduce((a, b) => a * b, 1);
  if (data.length !== n) throw new RangeError(`formatTensor: ${data.length} values for shape [${shape.join(', ')}]`);
  const edge = o.edgeItems ?? 3;
  const summarise = shape.length === 1 && o.threshold !== undefined && n > o.threshold;
  const shown = summarise ? [...Array.from({ length: edge }, (_, i) => i), ...Array.from({ length: edge }, (_, i) => n - edge + i)] : [];
  const values = summarise ? shown.map((i) => data[i] as number) : Array.from(data);
  let intMode = true;
  for (const v of values) if (!isWhole(v)) intMode = false;
  const strings = values.map((v) => element(v, intMode, o));
  const width = Math.max(...strings.map((s) => s.length));
  const padded = strings.map((s) => s.padStart(width));
  if (summarise) {
    return `tensor([${[...padded.slice(0, edge), '...', ...padded.slice(edge)].join(', ')}])`;
  }
  const block = (offset: number, dims: readonly number[], indent: number): string => {
    const [d0, ...rest] = dims;
    if (rest.length === 0) return `[${padded.slice(offset, offset + (d0 ?? 0)).join(', ')}]`;
    const stride = rest.reduce((a, b) => a * b, 1);
    const parts = Array.from({ length: d0 ?? 0 }, (_, i) => block(offset + i * stride, rest, indent + 1));
    // PyTorch separates sub-blocks by one newline per remaining dimension.
    return `[${parts.join(`,${'\n'.repeat(rest.length)}${' '.repeat(indent + 1)}`)}]`;
  };
  return `tensor(${block(0, shape, 'tensor('.length)})`;
}
