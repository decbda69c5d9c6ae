// RoPE settings of published models, for the RoPE lab and the wavelength
// panel: one layer of a config the "Your model" section ships
// (yourmodel-configs.ts), read by pe.ropeFromConfig, so a preset is exactly
// what the core reads from that model's config.json.
import { ropeOriginalContext, type Posenc, type RopeLayerOptions } from 'posenc';

import { tf } from './textfill.js';
import { PUBLISHED_CONFIGS } from './sections/yourmodel/configs.js';

export interface RopePreset {
  /** Its URL value. */
  id: string;
  /** The model's name (`label()` adds which layers, translated). */
  name: string;
  /** Which layers, for a model whose layers differ. */
  kind?: 'local' | 'global';
  /** The layer's options, as ropeFromConfig returns them. */
  layer: RopeLayerOptions;
  /** The context the RoPE was trained on before extension (M). */
  context: number;
  /** The length the model is meant to reach: max_position_embeddings when longer, else factor x M, else 4 M. */
  length: number;
}

/** [preset id, config id, decoder layer, which layers]. */
const CHOSEN: ReadonlyArray<readonly [string, string, number, RopePreset['kind']?]> = [
  ['llama-2-7b', 'llama-2-7b', 0],
  ['llama-3.1-8b', 'llama-3.1-8b', 0],
  ['qwen2.5-7b-yarn', 'qwen2.5-7b-yarn', 0],
  ['phi-3.5-mini', 'phi-3.5-mini', 0],
  ['phi-4-mini', 'phi-4-mini', 0],
  ['gemma-3-1b-local', 'gemma-3-1b', 0, 'local'],
  ['gemma-3-1b-global', 'gemma-3-1b', 5, 'global'],
  ['deepseek-v3', 'deepseek-v3', 0],
];

/** The ids, in the order the selects list them. */
export const PRESET_IDS: readonly string[] = CHOSEN.map(([id]) => id);

let cache: RopePreset[] | undefined;

/** The presets, read from their configs by `pe` (once). */
export function ropePresets(pe: Posenc): RopePreset[] {
  cache ??= CHOSEN.map(([id, configId, index, kind]) => {
    const c = PUBLISHED_CONFIGS.find((x) => x.id === configId)!;
    const rc = pe.ropeFromConfig(c.config);
    const layer = rc.layers[index]!;
    const context = ropeOriginalContext(layer, rc.maxPositions)!;
    const factor = 'factor' in layer.scaling ? layer.scaling.factor : undefined;
    const length = rc.maxPositions !== undefined && rc.maxPositions > context ? rc.maxPositions
      : factor !== undefined ? Math.round(factor * context) : 4 * context;
    return { id, name: c.name, ...(kind === undefined ? {} : { kind }), layer, context, length };
  });
  return cache;
}

/** "Gemma 3 1B, sliding layers", in the current language. */
export const presetLabel = (p: RopePreset): string => (p.kind === undefined ? p.name : tf(`preset.${p.kind}`, { name: p.name }));
