// A module Worker for tests/browser/main.js: a pool created here with `connect`, its Workers started by
// the page (startPoolWorker), checked against this Worker's own pe.attention, byte for byte; then
// a connect() that returns no port, and a call after terminate().
import { init } from '/dist/index.js';
import { createPool } from '/dist/pool-browser.js';

const message = (p) => p.then(() => 'no error', (e) => String(e.message));

self.addEventListener('message', async (e) => {
  const { simd } = e.data;
  const out = {};
  try {
    const pe = await init({ simd });
    let ports = 0;
    const connect = () => {
      ports += 1;
      const { port1, port2 } = new MessageChannel();
      self.postMessage({ poolPort: port2 }, [port2]);
      return port1;
    };
    const pool = await createPool({ workers: 2, simd, minSplitWork: 0, connect });
    const H = 4, T = 64, D = 32;
    const wave = (n, p) => Float32Array.from({ length: n }, (_, i) => Math.sin(0.377 * i + p));
    const call = { q: wave(H * T * D, 1), k: wave(H * T * D, 2), v: wave(H * T * D, 3), heads: H, queryLength: T, keyLength: T, headDim: D, rope: { layout: 'half' } };
    const want = new Uint8Array(pe.attention(call).out.buffer);
    const got = new Uint8Array((await pool.attention(call)).out.buffer);
    out.workers = pool.workers;
    out.ports = ports;
    out.same = got.length === want.length && got.every((x, i) => x === want[i]);
    await pool.terminate();
    out.afterTerminate = await message(pool.attention(call));
    out.badConnect = await message(createPool({ workers: 1, simd, connect: () => 'a port' }));
  } catch (err) {
    out.error = String(err && err.stack ? err.stack : err);
  }
  self.postMessage({ result: out });
});
