/** Both wasm flavours, loaded once per test process. */
import { init, type Posenc } from 'posenc';

export const flavours: Array<[string, Promise<Posenc>]> = [
  ['simd', init({ simd: true })],
  ['scalar', init({ simd: false })],
];
