// Tensors printed the way PyTorch's print() shows them with
// torch.set_printoptions(precision=4, sci_mode=False, linewidth=200) and the
// default threshold (1000 elements) and edgeitems (3). Our own implementation
// of the rules of that format, so that the page's output reads exactly as the
// PyTorch snippets beside it would print:
// - a float tensor whose nonzero finite values are all whole prints them as
//   "-4." (and zeros as "0.", negative zero as "-0."), any other with 4 decimals;
// - the column width is set by the nonzero finite values only (a longer
//   "-inf" is not padded, a shorter one is right-aligned to it); where PyTorch
//   would have picked scientific notation (largest / smallest > 1000, largest
//   > 1e8, or a non-whole tensor's smallest < 1e-4) the width is that of the
//   scientific strings, although sci_mode=False prints them fixed;
// - a row longer than the line width wraps, 1-D tensors of more than 1000
//   elements print their first and last 3 around "...".

export interface TorchPrintOptions {
  /** Decimals of a non-integer float tensor. Default 4. */
  precision?: number;
  /** An integer dtype (int64): elements print as plain integers. */
  integer?: boolean;
  /** Tensors of more elements print `edgeItems` at each end around "..." (1-D only here). Default 1000, as PyTorch's. */
  threshold?: number;
  edgeItems?: number;
  /** Characters per line before a row wraps. Default 200 (the snippets' set_printoptions). */
  linewidth?: number;
}

/** `torch.Size([2, 4, 8])`. */
export function torchSize(shape: readonly number[]): string {
  return `torch.Size([${shape.join(', ')}])`;
}

/** Python's `'{:.<digits>e}'.format(v)`: `1.1921e-07`. */
function pythonExp(v: number, digits: number): string {
  const [mant, exp] = v.toExponential(digits).split('e') as [string, string];
  const e = Number(exp);
  return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

/**
 * `a >= 0` to `digits` decimals as Python rounds it: the exact binary value, a
 * tie to the even last digit (0.03125 -> "0.0312"; toFixed gives "0.0313").
 */
function roundHalfEven(a: number, digits: number): string {
  const fixed = a.toFixed(digits);
  const [ip, fp = ''] = a.toFixed(100).split('.');
  const rest = fp.slice(digits);
  if (!/^50*$/.test(rest)) return fixed;
  const down = digits === 0 ? ip! : `${ip!}.${fp.slice(0, digits)}`;
  return Number(down[down.length - 1]) % 2 === 0 ? down : fixed;
}

/** Python's `'{:.<digits>f}'.format(v)` (an f-string's `{v:.4f}`), sign of zero kept. */
export function pythonFixed(v: number, digits: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  const body = roundHalfEven(Math.abs(v), digits);
  return v < 0 || Object.is(v, -0) ? `-${body}` : body;
}

/** PyTorch's _Formatter (sci_mode=False): how each element prints, and the width every element is padded to. */
function formatter(values: readonly number[], o: TorchPrintOptions): { width: number; format(v: number): string } {
  const precision = o.precision ?? 4;
  if (o.integer) {
    const width = Math.max(1, ...values.map((v) => String(v).length));
    return { width, format: (v) => String(v).padStart(width) };
  }
  const nonzero = values.filter((v) => Number.isFinite(v) && v !== 0);
  let intMode = true;
  let width = 1;
  if (nonzero.length > 0) {
    const abs = nonzero.map(Math.abs);
    const lo = Math.min(...abs), hi = Math.max(...abs);
    intMode = nonzero.every((v) => Math.ceil(v) === v);
    const sci = hi / lo > 1000 || hi > 1e8 || (!intMode && lo < 1e-4);
    const str = sci ? (v: number): string => pythonExp(v, precision)
      : intMode ? (v: number): string => `${pythonFixed(v, 0)}.`
        : (v: number): string => pythonFixed(v, precision);
    width = Math.max(1, ...nonzero.map((v) => str(v).length));
  }
  const format = (v: number): string => {
    const s = intMode ? (Number.isFinite(v) ? `${pythonFixed(v, 0)}.` : pythonFixed(v, 0)) : pythonFixed(v, precision);
    return s.padStart(width);
  };
  return { width, format };
}

/**
 * `tensor([[...], [...]])` of row-major `data` with `shape` (0-D to 3-D), as
 * `print(t)` shows it (the part after "tensor(" is indented by 7 characters).
 */
export function formatTensor(data: ArrayLike<number>, shape: readonly number[], o: TorchPrintOptions = {}): string {
  const n = shape.reduce((a, b) => a * b, 1);
  if (data.length !== n) throw new RangeError(`formatTensor: ${data.length} values for shape [${shape.join(', ')}]`);
  const edge = o.edgeItems ?? 3;
  const linewidth = o.linewidth ?? 200;
  const summarise = n > (o.threshold ?? 1000);
  if (summarise && shape.length !== 1) throw new RangeError('formatTensor: only 1-D tensors are summarised here');
  const all = Array.from(data);
  const summary = summarise && n > 2 * edge ? [...all.slice(0, edge), ...all.slice(n - edge)] : all;
  const f = formatter(summary, o);
  const indent0 = 'tensor('.length;
  if (shape.length === 0) return `tensor(${f.format(all[0]!)})`;
  // One row (the last dimension), wrapped every floor((linewidth - indent) / (width + 2)) elements.
  const row = (offset: number, len: number, indent: number): string => {
    const items = summarise && len > 2 * edge
      ? [...all.slice(offset, offset + edge).map(f.format), ' ...', ...all.slice(offset + len - edge, offset + len).map(f.format)]
      : all.slice(offset, offset + len).map(f.format);
    const perLine = Math.max(1, Math.floor((linewidth - indent) / (f.width + 2)));
    const lines: string[] = [];
    for (let i = 0; i < items.length; i += perLine) lines.push(items.slice(i, i + perLine).join(', '));
    return `[${lines.join(`,\n${' '.repeat(indent + 1)}`)}]`;
  };
  const block = (offset: number, dims: readonly number[], indent: number): string => {
    const [d0, ...rest] = dims;
    if (rest.length === 0) return row(offset, d0 ?? 0, indent);
    const stride = rest.reduce((a, b) => a * b, 1);
    const parts = Array.from({ length: d0 ?? 0 }, (_, i) => block(offset + i * stride, rest, indent + 1));
    // PyTorch separates sub-blocks by one newline per remaining dimension.
    return `[${parts.join(`,${'\n'.repeat(rest.length)}${' '.repeat(indent + 1)}`)}]`;
  };
  return `tensor(${block(0, shape, indent0)})`;
}
