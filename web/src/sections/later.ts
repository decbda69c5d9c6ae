// Sections 2 to 14, one chunk of the page: main.ts imports it dynamically
// once section 1 is on screen (or at once, for a deep link), so the first
// bundle holds only the start-up code, section 1 and the strings.
export { mountBias } from './bias.js';
export { mountBugs } from './bugs.js';
export { mountDerivation } from './derivation.js';
export { mountExamples } from './examples.js';
export { mountExtrapolation } from './extrapolation.js';
export { mountPipeline } from './pipeline.js';
export { mountPositions } from './positions.js';
export { mountQuiz } from './quiz.js';
export { mountRope } from './rope.js';
export { mountSinusoidal } from './sinusoidal.js';
export { mountTaxonomy } from './taxonomy.js';
export { mountTrain } from './train.js';
export { mountYourModel } from './yourmodel.js';
