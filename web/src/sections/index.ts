// The page's sections, in page order: the one list from which the page takes
// them. main.ts mounts them in this order (the first in the page's first
// bundle, the others in one lazily loaded chunk: tools/sections.mjs makes
// both from this list), nav.ts links them, index.html gets their shells
// (`<section id>`, its heading `<id>.title` and intro `<id>.text`, generated
// by the same plugin) and i18n.ts merges their strings. A section lives in
// sections/<id>/: mount.ts (`export function mount(ctx, body)`), text.ts (`en`
// and `zh` with the same keys) and, if it needs any, style.css.
// Adding a section: its folder, and one import and one line below.
import * as bias from './bias/text.js';
import * as bugs from './bugs/text.js';
import * as derivation from './derivation/text.js';
import * as examples from './examples/text.js';
import * as extrapolation from './extrapolation/text.js';
import * as order from './order/text.js';
import * as pipeline from './pipeline/text.js';
import * as positions from './positions/text.js';
import * as quiz from './quiz/text.js';
import * as rope from './rope/text.js';
import * as sinusoidal from './sinusoidal/text.js';
import * as taxonomy from './taxonomy/text.js';
import * as train from './train/text.js';
import * as yourmodel from './yourmodel/text.js';

export const SECTIONS = [
  { id: 'order', text: order },
  { id: 'taxonomy', text: taxonomy },
  { id: 'pipeline', text: pipeline },
  { id: 'sinusoidal', text: sinusoidal },
  { id: 'derivation', text: derivation },
  { id: 'rope', text: rope },
  { id: 'bias', text: bias },
  { id: 'examples', text: examples },
  { id: 'positions', text: positions },
  { id: 'extrapolation', text: extrapolation },
  { id: 'bugs', text: bugs },
  { id: 'train', text: train },
  { id: 'yourmodel', text: yourmodel },
  { id: 'quiz', text: quiz },
] as const;

export type SectionId = (typeof SECTIONS)[number]['id'];

/** The section ids in page order. */
export const SECTION_IDS: readonly SectionId[] = SECTIONS.map((s) => s.id);
