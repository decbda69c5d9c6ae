/**
 * Float64 reference for the RoPE frequencies a transformers model derives
 * from its config.json, written from the rope initialisation functions of
 * the transformers library (default, linear, dynamic, yarn, longrope,
 * llama3), reading the raw config on its own (independently of
 * ropeFromConfig).
 */
// The raw config, read as the Python code reads a dict.
type Json = Record<string, any>;

/** head dim and rotated width as the model code computes them. */
export function hfDims(c: Json): { headDim: number; dim: number } {
  if (c.qk_rope_head_dim) return { headDim: c.qk_rope_head_dim, dim: c.qk_rope_head_dim };
  const headDim: number = c.head_dim ?? (c.hidden_size ?? c.n_embd) / (c.num_attention_heads ?? c.n_head);
  if (c.rotary_dim) return { headDim, dim: c.rotary_dim };
  const share: number = c.partial_rotary_factor ?? c.rotary_pct ?? 1;
  return { headDim, dim: Math.trunc(headDim * share) };
}

/** inverse frequencies [dim / 2] and the attention scaling, for a sequence of seqLen positions. */
export function hfRope(c: Json, seqLen: number): { invFreq: number[]; attention: number } {
  const { dim } = hfDims(c);
  const base: number = c.rope_theta ?? c.rotary_emb_base ?? 10000;
  const s: Json = c.rope_scaling ?? c.rope_parameters ?? {};
  const type: string = s.rope_type ?? s.type ?? 'default';
  const pow = (b: number): number[] => Array.from({ length: dim / 2 }, (_, i) => b ** ((2 * i) / dim));
  const plain = pow(base).map((p) => 1 / p);
  switch (type) {
    case 'default':
      return { invFreq: plain, attention: 1 };
    case 'linear':
      return { invFreq: plain.map((f) => f / s.factor), attention: 1 };
    case 'dynamic': {
      const M: number = s.original_max_position_embeddings ?? c.max_position_embeddings;
      const T = Math.max(seqLen, M);
      const b = base * ((s.factor * T) / M - (s.factor - 1)) ** (dim / (dim - 2));
      return { invFreq: pow(b).map((p) => 1 / p), attention: 1 };
    }
    case 'yarn': {
      const L: number = s.original_max_position_embeddings ?? c.max_position_embeddings;
      const factor: number = s.factor;
      const mscaleOf = (scale: number, m = 1): number => (scale <= 1 ? 1 : 0.1 * m * Math.log(scale) + 1);
      let attention: number = s.attention_factor;
      if (attention === undefined) {
        attention = s.mscale && s.mscale_all_dim ? mscaleOf(factor, s.mscale) / mscaleOf(factor, s.mscale_all_dim) : mscaleOf(factor);
      }
      const correction = (rotations: number): number => (dim * Math.log(L / (rotations * 2 * Math.PI))) / (2 * Math.log(base));
      let low = correction(s.beta_fast ?? 32);
      let high = correction(s.beta_slow ?? 1);
      if (s.truncate ?? true) {
        low = Math.floor(low);
        high = Math.ceil(high);
      }
      low = Math.max(low, 0);
      high = Math.min(high, dim - 1);
      if (low === high) high += 0.001;
      const invFreq = pow(base).map((p, i) => {
        const ramp = Math.min(1, Math.max(0, (i - low) / (high - low)));
        const extrapolation = 1 - ramp;
        return (1 / (factor * p)) * (1 - extrapolation) + (1 / p) * extrapolation;
      });
      return { invFreq, attention };
    }
    case 'longrope':
    case 'su': {
      const L: number = c.original_max_position_embeddings ?? s.original_max_position_embeddings;
      const factor: number = c.original_max_position_embeddings ? c.max_position_embeddings / L : s.factor;
      const attention: number = s.attention_factor ?? (factor <= 1 ? 1 : Math.sqrt(1 + Math.log(factor) / Math.log(L)));
      const ext: number[] = seqLen > L ? s.long_factor : s.short_factor;
      return { invFreq: pow(base).map((p, i) => 1 / (ext[i]! * p)), attention };
    }
    case 'llama3': {
      const L: number = s.original_max_position_embeddings;
      const lowWavelength = L / s.low_freq_factor;
      const highWavelength = L / s.high_freq_factor;
      const invFreq = plain.map((f) => {
        const wavelength = (2 * Math.PI) / f;
        const scaled = wavelength > lowWavelength ? f / s.factor : f;
        const medium = !(wavelength < highWavelength) && !(wavelength > lowWavelength);
        if (!medium) return scaled;
        const smooth = (L / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
        return ((1 - smooth) * scaled) / s.factor + smooth * scaled;
      });
      return { invFreq, attention: 1 };
    }
  }
  throw new Error(`reference: no rope type ${type}`);
}
