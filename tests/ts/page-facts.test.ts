/**
 * Facts the page states in words, each computed here from posenc (and checked
 * against float64 math where the math is short), and the page's sentence for
 * it checked in English and Chinese: a corrected sentence cannot drift back
 * to the wrong claim without a test failing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import * as bugs from '../../web/src/sections/bugs/text.js';
import * as pipeline from '../../web/src/sections/pipeline/text.js';
import * as quiz from '../../web/src/sections/quiz/text.js';
import * as taxonomy from '../../web/src/sections/taxonomy/text.js';
import { flavours } from './flavours.js';

/** Index of the largest value. */
const argmax = (xs: ArrayLike<number>): number => {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i]! > xs[best]!) best = i;
  return best;
};

for (const [name, loading] of flavours) {
  describe(`what the page says, against what posenc computes (${name})`, () => {
    it('xPos: q shrinks and k grows with position; their product decays with distance', async () => {
      const pe = await loading;
      const positions = Int32Array.from([0, 16, 256]);
      const q = pe.xposScales({ positions, rotaryDim: 16 });
      const k = pe.xposScales({ positions, rotaryDim: 16, key: true });
      const pairs = 8;
      for (let i = 0; i < pairs; i++) {
        // Sun et al.: zeta_i = (2i/d + 0.4) / 1.4 < 1; q by zeta^(m/512), k by zeta^(-n/512).
        const zeta = (2 * i / 16 + 0.4) / 1.4;
        for (const [p, m] of [0, 16, 256].entries()) {
          assert.ok(Math.abs(q[p * pairs + i]! - zeta ** (m / 512)) < 1e-6, `q scale, pair ${i}, position ${m}`);
          assert.ok(Math.abs(k[p * pairs + i]! - zeta ** (-m / 512)) < 1e-5, `k scale, pair ${i}, position ${m}`);
        }
        assert.ok(q[2 * pairs + i]! < q[pairs + i]! && q[pairs + i]! < q[i]!, `q shrinks, pair ${i}`);
        assert.ok(k[2 * pairs + i]! > k[pairs + i]! && k[pairs + i]! > k[i]!, `k grows, pair ${i}`);
      }
      assert.match(pipeline.en['pipeline.say.xpos'], /q shrinks with its position m .* k grows with its position n/);
      assert.match(pipeline.zh['pipeline.say.xpos'], /q 随自己的位置 m 缩小.*k 随自己的位置 n 放大/);
    });

    it('PI divides every pair by the same factor; NTK-aware scaling and YaRN mostly the slow pairs', async () => {
      const pe = await loading;
      const plain = pe.ropeFrequencies({ headDim: 128 }).invFreq;
      const ratios = (scaling: Parameters<typeof pe.ropeFrequencies>[0]['scaling']): number[] => {
        const f = pe.ropeFrequencies({ headDim: 128, scaling }).invFreq;
        return Array.from(plain, (p, i) => p / f[i]!);
      };
      const pi = ratios({ type: 'linear', factor: 4 });
      assert.ok(pi.every((r) => Math.abs(r - 4) < 1e-5), 'PI: every pair slowed by 4');
      for (const r of [ratios({ type: 'ntk', factor: 4 }), ratios({ type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096 })]) {
        assert.ok(Math.abs(r[0]! - 1) < 1e-6, `the fastest pair is left alone: ${r[0]}`);
        assert.ok(r[63]! > 3.5, `the slowest pair is slowed most: ${r[63]}`);
      }
      assert.match(quiz.en['quiz.lowfreq.why'], /PI is the exception: it divides every pair’s frequency by the same factor/);
      assert.match(quiz.zh['quiz.lowfreq.why'], /PI 是例外：它把每个维度对的频率都除以同一个倍数/);
    });

    it('a wrong base or partial-rotary frequencies over the head dim: the slow pairs are off most as a ratio, the fast pairs after pair 0 most in angle within 64 tokens', async () => {
      const pe = await loading;
      const m = 63;
      const check = (right: Float32Array, wrong: Float32Array, what: string): void => {
        const ratio = Array.from(right, (r, i) => Math.max(r / wrong[i]!, wrong[i]! / r));
        const angle = Array.from(right, (r, i) => Math.abs(r - wrong[i]!) * m);
        assert.equal(argmax(ratio), right.length - 1, `${what}: the slowest pair has the largest ratio`);
        assert.equal(argmax(angle), 1, `${what}: pair 1 has the largest angle error (${angle.map((a) => a.toFixed(2)).join(', ')})`);
        assert.equal(angle[0], 0, `${what}: pair 0 does not change`);
      };
      // The shipped language model: head dim 16, base 10000; the wrong base is 500000.
      check(pe.ropeFrequencies({ headDim: 16 }).invFreq, pe.ropeFrequencies({ headDim: 16, base: 500000 }).invFreq, 'wrong base');
      // Partial rotary: 8 of 16 dims rotate; the bug computes the exponent over 16.
      check(pe.ropeFrequencies({ headDim: 16, rotaryDim: 8 }).invFreq, pe.ropeFrequencies({ headDim: 16 }).invFreq.slice(0, 4), 'partial rotary');
      // The texts name the training length M through a placeholder (the page fills it from describe).
      assert.match(bugs.en['bugs.wrong-base'], /slowest pairs are off the most; but within the \{M\} training tokens the angle error.* is largest on the fast pairs just after pair 0/);
      assert.match(bugs.zh['bugs.wrong-base'], /最慢的几个维度对偏得最多；但在训练用的 \{M\} 个 token 之内，角度误差 .* 最大的是紧跟在第 0 个之后的那几个快速维度对/);
      assert.match(bugs.en['bugs.partial-rotary-freq-over-head-dim'], /slow pairs are off the most; within the \{M\} training tokens, though, the angle error .* is largest on pair 1/);
      assert.match(bugs.zh['bugs.partial-rotary-freq-over-head-dim'], /低频的那些偏得最多；但在训练用的 \{M\} 个 token 之内，角度误差 .* 最大的是第 1 个维度对/);
    });

    it('YaRN: the attention factor grows with the factor (section 11 shows the doubled factor at ×16, not ×4)', async () => {
      const pe = await loading;
      // The shipped language-rope model: head dim 16, base 10000, trained on 64 tokens; the demo runs 256.
      const af = (factor: number): number => pe.ropeFrequencies({
        headDim: 16, seqLen: 256, scaling: { type: 'yarn', factor, originalMaxPositionEmbeddings: 64 },
      }).attentionFactor;
      // Peng et al.: 0.1 ln s + 1.
      for (const s of [4, 16]) assert.ok(Math.abs(af(s) - (0.1 * Math.log(s) + 1)) < 1e-6, `×${s}: ${af(s)}`);
      assert.ok(af(16) > af(4));
      assert.match(bugs.en['bugs.yarn-magnitude-twice'], /the larger the factor, the larger the attention factor \(\{af\} at ×\{factor\}, \{afSmall\} at ×\{small\}\).*“Correct” here is the same model with YaRN ×\{factor\} applied once/);
      assert.match(bugs.zh['bugs.yarn-magnitude-twice'], /倍数越大，注意力因子越大（×\{factor\} 时为 \{af\}，×\{small\} 时为 \{afSmall\}）.*“正确”指同一个模型只用一次 YaRN ×\{factor\}/);
    });

    it('T5: the near half of the buckets are exact distances, the far half log-spaced', async () => {
      const pe = await loading;
      // One causal query at position 199 against keys 0..199: bucket of distance d = 199 - key.
      const b = pe.t5Buckets({ queryLength: 1, keyLength: 200, bidirectional: false, queryOffset: 199 });
      const ofDistance = (d: number): number => b[199 - d]!;
      for (let d = 0; d < 16; d++) assert.equal(ofDistance(d), d, `distance ${d} has a bucket of its own`);
      assert.equal(ofDistance(16), 16);
      assert.equal(ofDistance(17), 16, 'past the exact half, distances share buckets');
      assert.equal(ofDistance(199), 31);
      assert.match(taxonomy.en['taxonomy.t5.kind'], /exact for near distances, log-spaced beyond/);
      assert.match(taxonomy.zh['taxonomy.t5.kind'], /近处每个距离一个桶，远处按对数分桶/);
    });
  });
}
