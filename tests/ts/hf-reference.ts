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
  if ((c.rope_parameters ?? {}).rope_type === 'proportional') return { headDim, dim: headDim };
  const share: number = (c.rope_parameters ?? {}).partial_rotary_factor ?? c.partial_rotary_factor ?? c.rotary_pct ?? 1;
  return { headDim, dim: Math.trunc(headDim * share) };
}

/** inverse frequencies [dim / 2] and the attention scaling, for a sequence of seqLen positions. */
export function hfRope(c: Json, seqLen: number): { invFreq: number[]; attention: number } {
  const { dim } = hfDims(c);
  const s: Json = c.rope_scaling ?? c.rope_parameters ?? {};
  const base: number = s.rope_theta ?? c.rope_theta ?? c.rotary_emb_base ?? 10000;
  const type: string = s.rope_type ?? s.type ?? 'default';
  const pow = (b: number): number[] => Array.from({ length: dim / 2 }, (_, i) => b ** ((2 * i) / dim));
  const plain = pow(base).map((p) => 1 / p);
  switch (type) {
    case 'default':
      return { invFreq: plain, attention: 1 };
    case 'linear':
      return { invFreq: plain.map((f) => f / s.factor), attention: 1 };
    case 'dynamic': {
      if (s.alpha !== undefined) {
        // HunYuan's rotary module: a fixed NTK base from alpha over the head dim, whatever the length.
        const d: number = c.head_dim ?? c.hidden_size / c.num_attention_heads;
        return { invFreq: pow(base * s.alpha ** (d / (d - 2))).map((p) => 1 / p), attention: 1 };
      }
      const M: number = s.original_max_position_embeddings ?? c.max_position_embeddings;
      const T = Math.max(seqLen, M);
      const b = base * ((s.factor * T) / M - (s.factor - 1)) ** (dim / (dim - 2));
      return { invFreq: pow(b).map((p) => 1 / p), attention: 1 };
    }
    case 'yarn': {
      const L: number = s.original_max_position_embeddings ?? c.max_position_embeddings;
      const factor: number = s.factor ?? c.max_position_embeddings / L;
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
      // The newest transformers: an explicit factor wins; without one, the ratio of the two lengths.
      const factor: number = s.factor ?? c.max_position_embeddings / L;
      const attention: number = s.attention_factor ?? (factor <= 1 ? 1 : Math.sqrt(1 + Math.log(factor) / Math.log(L)));
      const ext: number[] = seqLen > L ? s.long_factor : s.short_factor;
      return { invFreq: pow(base).map((p, i) => 1 / (ext[i]! * p)), attention };
    }
    case 'proportional': {
      // Gemma 4: the first int(p * d // 2) frequencies of a full-head RoPE, then zeros, all over factor.
      const turning = Math.floor(((s.partial_rotary_factor ?? 1) * dim) / 2);
      return { invFreq: plain.map((f, i) => (i < turning ? f / (s.factor ?? 1) : 0)), attention: 1 };
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

/**
 * Per-layer float64 reference: how the transformers model classes route RoPE to each decoder layer,
 * written from their modeling files (Gemma 3's local and global rotary modules, OLMo 3's unscaled sliding
 * rotary, Cohere2 / EXAONE 4 skipping RoPE on global layers, Llama 4 / SmolLM3 `no_rope_layers`,
 * Qwen3-Next's and LFM2's layers without attention). Each entry: the layer's frequencies and attention
 * scaling (`hfRope` of the config that layer's rotary module sees), or null.
 */
export function hfLayers(config: Json, seqLen: number): Array<{ invFreq: number[]; attention: number; dims: { headDim: number; dim: number } } | null> {
  // A multimodal config's text model: its text_config over the top level.
  const c: Json = { ...config, ...(config.text_config ?? {}) };
  const wrapped: Record<string, string> = { gemma3: 'gemma3_text', gemma3n: 'gemma3n_text', gemma4: 'gemma4_text', llama4: 'llama4_text' };
  const type: string = config.text_config?.model_type ?? wrapped[config.model_type] ?? config.model_type;
  const n: number = c.num_hidden_layers ?? c.n_layer;
  const kinds: string[] = [];
  for (let i = 0; i < n; i++) {
    let kind = 'full_attention';
    if (c.layer_types) kind = c.layer_types[i];
    else if (typeof c.sliding_window_pattern === 'string') {
      const p: string = c.sliding_window_pattern;
      kind = i === n - 1 || p[i % p.length] === 'G' ? 'full_attention' : 'sliding_attention';
    } else if (c.sliding_window_pattern) kind = (i + 1) % c.sliding_window_pattern ? 'sliding_attention' : 'full_attention';
    else if (c.full_attention_interval) kind = (i + 1) % c.full_attention_interval ? 'linear_attention' : 'full_attention';
    else if (c.full_attn_idxs) kind = c.full_attn_idxs.includes(i) ? 'full_attention' : 'conv';
    else if (type === 'gemma3_text') kind = (i + 1) % 6 ? 'sliding_attention' : 'full_attention';
    else if (type === 'gemma4_text') kind = i === n - 1 || !((i + 1) % 6) ? 'full_attention' : 'sliding_attention';
    else if (type === 'gemma3n_text') kind = (i + 1) % 5 ? 'sliding_attention' : 'full_attention';
    else if (type === 'olmo3') kind = (i + 1) % 4 ? 'sliding_attention' : 'full_attention';
    else if (type === 'cohere2' || type === 'exaone4') kind = (i + 1) % 4 ? 'sliding_attention' : 'full_attention';
    else if (type === 'qwen3_next') kind = (i + 1) % 4 ? 'linear_attention' : 'full_attention';
    kinds.push(kind);
  }
  const window = 'sliding_window' in c ? c.sliding_window : (type === 'cohere2' || type === 'exaone4' ? 4096 : null);
  return kinds.map((kind, i) => {
    if (kind === 'linear_attention' || kind === 'conv') return null;
    if (type === 'llama4_text' || type === 'smollm3') {
      const uses = c.no_rope_layers && c.no_rope_layers.length > 0 ? c.no_rope_layers[i] : Number((i + 1) % (c.no_rope_layer_interval ?? 4) !== 0);
      if (!uses) return null;
    }
    if (type === 'cohere2' && !(window != null && kind === 'sliding_attention')) return null;
    if (type === 'exaone4' && window != null && kind !== 'sliding_attention') return null;
    // The config the layer's rotary module is built from.
    let seen: Json = { ...c };
    if (type === 'gemma3_text' || type === 'gemma3n_text') {
      seen.head_dim = c.head_dim ?? 256;
      seen.rope_theta = c.rope_theta ?? 1e6;
      if (kind === 'sliding_attention') seen = { ...seen, rope_theta: c.rope_local_base_freq ?? 1e4, rope_scaling: null };
    }
    if (type === 'olmo3' && kind === 'sliding_attention') seen = { ...seen, rope_scaling: null };
    // v5 rope_parameters keyed by layer type (Gemma 4's class default when absent): the layer's own part.
    const byType: Json | undefined = c.rope_parameters?.[kind] !== undefined ? c.rope_parameters : (type === 'gemma4_text' ? {
      sliding_attention: { rope_type: 'default', rope_theta: 10000 },
      full_attention: { rope_type: 'proportional', partial_rotary_factor: 0.25, rope_theta: 1e6 },
    } : undefined);
    if (byType !== undefined) seen = { ...seen, rope_parameters: byType[kind], rope_scaling: undefined };
    if (type === 'gemma4_text' && kind === 'full_attention') seen.head_dim = c.global_head_dim ?? 512;
    if (type === 'llama4_text') {
      seen.rope_theta = c.rope_theta ?? 5e5;
      if (c.rope_scaling) seen.rope_scaling = { ...c.rope_scaling, rope_type: 'llama3' };
    }
    if (type === 'smollm3') seen.rope_theta = c.rope_theta ?? 2e6;
    if (type === 'qwen3_next') seen.partial_rotary_factor = c.partial_rotary_factor ?? 0.25;
    if (type === 'glm4_moe') seen.partial_rotary_factor = c.partial_rotary_factor ?? 0.5;
    return { ...hfRope(seen, seqLen), dims: hfDims(seen) };
  });
}

/**
 * transformers' `get_rope_index` of the Qwen2-VL family (the classic loop: find the next image or video
 * token after the last span, the text before it counts on from the running maximum + 1, then the vision
 * block's (t, h, w) grid), ported as written: positions [batch, 3, seqLen] (padding 1) and deltas.
 */
export function hfRopeIndex(o: Json): { positions: number[]; deltas: number[] } {
  const B: number = o.batch ?? 1;
  const S: number = o.inputIds.length / B;
  const m: number = o.spatialMergeSize;
  const grid = (g: Int32Array | undefined): number[][] => {
    const out: number[][] = [];
    for (let i = 0; g && i < g.length; i += 3) out.push([g[i]!, g[i + 1]!, g[i + 2]!]);
    return out;
  };
  const images = grid(o.imageGridThw);
  let videos = grid(o.videoGridThw);
  // Qwen3-VL: repeat_interleave the video grids by t, each with t = 1.
  if (o.splitVideoFrames) videos = videos.flatMap(([t, h, w]) => Array.from({ length: t! }, () => [1, h!, w!]));
  const positions: number[] = Array<number>(B * 3 * S).fill(1);
  const deltas: number[] = [];
  let imageIndex = 0;
  let videoIndex = 0;
  for (let b = 0; b < B; b++) {
    const keep = Array.from({ length: S }, (_, s) => s).filter((s) => !o.attentionMask || o.attentionMask[b * S + s] === 1);
    const tokens: number[] = keep.map((s) => o.inputIds[b * S + s]);
    let imageNums = 0;
    let videoNums = 0;
    tokens.forEach((t, i) => {
      if (t === o.visionStartTokenId && i + 1 < tokens.length) {
        if (tokens[i + 1] === o.imageTokenId) imageNums++;
        if (tokens[i + 1] === o.videoTokenId) videoNums++;
      }
    });
    const pieces: number[][][] = [];  // each [3][n]
    const maxSoFar = (): number => (pieces.length === 0 ? -1 : Math.max(...pieces.flatMap((p) => p.flat())));
    let st = 0;
    let remainImages = imageNums;
    let remainVideos = videoNums;
    for (let k = 0; k < imageNums + videoNums; k++) {
      const edImage = remainImages > 0 ? tokens.indexOf(o.imageTokenId, st) : tokens.length + 1;
      const edVideo = remainVideos > 0 ? tokens.indexOf(o.videoTokenId, st) : tokens.length + 1;
      let t: number, h: number, w: number, secondPerGrid: number, ed: number;
      if (edImage < edVideo) {
        [t, h, w] = images[imageIndex++] as [number, number, number];
        secondPerGrid = 0;
        remainImages--;
        ed = edImage;
      } else {
        [t, h, w] = videos[videoIndex] as [number, number, number];
        secondPerGrid = o.secondPerGridTs ? o.secondPerGridTs[videoIndex] : 1.0;
        videoIndex++;
        remainVideos--;
        ed = edVideo;
      }
      const gh = h / m;
      const gw = w / m;
      const textLen = ed - st;
      const stIdx = maxSoFar() + 1;
      pieces.push([0, 1, 2].map(() => Array.from({ length: textLen }, (_, i) => i + stIdx)));
      const T: number[] = [];
      const H: number[] = [];
      const W: number[] = [];
      for (let ti = 0; ti < t; ti++) {
        for (let hi = 0; hi < gh; hi++) {
          for (let wi = 0; wi < gw; wi++) {
            // Qwen2.5-VL: long(ti * second_per_grid * tokens_per_second); Qwen2-VL: ti.
            T.push((o.tokensPerSecond === undefined ? ti : Math.trunc(ti * secondPerGrid * o.tokensPerSecond)) + textLen + stIdx);
            H.push(hi + textLen + stIdx);
            W.push(wi + textLen + stIdx);
          }
        }
      }
      pieces.push([T, H, W]);
      st = ed + t * gh * gw;
    }
    if (st < tokens.length) {
      const stIdx = maxSoFar() + 1;
      pieces.push([0, 1, 2].map(() => Array.from({ length: tokens.length - st }, (_, i) => i + stIdx)));
    }
    const rowsOf = [0, 1, 2].map((a) => pieces.flatMap((p) => p[a]!));
    for (let a = 0; a < 3; a++) keep.forEach((s, i) => (positions[(b * 3 + a) * S + s] = rowsOf[a]![i]!));
    deltas.push(Math.max(...rowsOf.flat(), -1) + 1 - S);
  }
  return { positions, deltas };
}

/**
 * The position row (0 temporal, 1 height, 2 width) each of the h frequency pairs takes, built as transformers
 * builds it: Qwen2-VL's `apply_multimodal_rotary_pos_emb` splits cos = cat(freqs, freqs) into chunks of
 * mrope_section * 2 and takes chunk k from row k % 3; Qwen3-VL's `apply_interleaved_mrope` starts from the
 * temporal row and overwrites the slices [1 : 3 s1 : 3] and [2 : 3 s2 : 3] from the height and width rows.
 */
export function hfMropeRows(section: readonly number[], interleaved: boolean, h: number): number[] {
  const rows = Array<number>(h).fill(0);
  if (interleaved) {
    for (let j = 1; j < 3 * section[1]! && j < h; j += 3) rows[j] = 1;
    for (let j = 2; j < 3 * section[2]! && j < h; j += 3) rows[j] = 2;
    return rows;
  }
  const chunks = [...section, ...section];
  let c = 0;
  chunks.forEach((len, k) => {
    for (let e = 0; e < len; e++, c++) if (c < h) rows[c] = k % 3;
  });
  return rows;
}
