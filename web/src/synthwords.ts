// The synthetic language's tokens as the page shows them. The core names the
// language task's 32 tokens w0 … w31 (src/model/tasks.cc TaskVocab); a reader
// scanning a generated line for where two decodings part reads made-up words
// faster than ids. One fixed table, so a token reads the same everywhere.

/** Token w<k> is shown as WORDS[k]: two open syllables, all distinct. */
const WORDS: readonly string[] = [
  'bako', 'dene', 'firu', 'galo', 'hemi', 'joku', 'kira', 'lupe',
  'mavo', 'nesi', 'poda', 'ruke', 'sami', 'tovu', 'vela', 'zoni',
  'bimu', 'dako', 'feso', 'gura', 'hilo', 'jame', 'kebu', 'lisu',
  'mori', 'nuka', 'pelu', 'rina', 'sove', 'tami', 'vudo', 'zeka',
];

const C = 'bdfghjklmnprstvz';
const V = 'aeiou';

/** A pronounceable stand-in for any id past the table (three syllables: never one of WORDS). */
function spell(k: number): string {
  let s = '';
  for (let n = k, i = 0; i < 3; i++, n = Math.floor(n / (C.length * V.length))) {
    s += C[n % C.length]! + V[Math.floor(n / C.length) % V.length]!;
  }
  return s;
}

/** The word shown for a synthetic-language token ("w13" -> "tovu"); any other token unchanged. */
export function synthWord(token: string): string {
  const m = /^w(\d+)$/.exec(token);
  if (!m) return token;
  const k = Number(m[1]);
  return WORDS[k] ?? spell(k);
}

/** A detokenized line ("w3 w17 w0") with every token shown as its word. */
export const synthText = (text: string): string => text.split(' ').map(synthWord).join(' ');
