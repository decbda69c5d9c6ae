/**
 * The Markdown the repository ships (README.md, CHANGELOG.md, docs/*.md):
 * every relative link (and <img src>) points at a file that exists, and every #anchor at a
 * heading of that file (GitHub's slugs); the docs carry no commit hashes as
 * baselines and no dates (history belongs in CHANGELOG.md).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';

import { root } from './page-harness.js';

const files = ['README.md', 'CHANGELOG.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = m[1]!.trim().toLowerCase().replace(/<[^>]+>/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The links of a Markdown text outside code: [text](target), and the src="target" of its HTML <img> tags. */
function links(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [
    ...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/<img\b[^>]*?\ssrc=["']([^"']+)["']/gi)].map((m) => m[1]!),
  ];
}

describe('the docs', () => {
  for (const file of files) {
    it(`${file}: every relative link and anchor resolves`, () => {
      const md = readFileSync(join(root, file), 'utf8');
      const bad: string[] = [];
      for (const target of links(md)) {
        if (/^[a-z]+:/i.test(target)) continue;  // http(s), mailto: not checked here (no network)
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const resolved = path === '' ? join(root, file) : normalize(join(dirname(join(root, file)), path));
        if (!existsSync(resolved)) {
          bad.push(`${target}: no such file`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
          bad.push(`${target}: no heading with that anchor`);
        }
      }
      assert.deepEqual(bad, []);
    });
  }

  it('docs/ and the README hold no baseline commits and no dates (CHANGELOG.md does)', () => {
    const bad: string[] = [];
    for (const file of files.filter((f) => f !== 'CHANGELOG.md')) {
      for (const [i, line] of readFileSync(join(root, file), 'utf8').split('\n').entries()) {
        if (/\b20\d\d-\d\d-\d\d\b/.test(line) || /baseline [0-9a-f]{7,}\b|--baseline [0-9a-f]{7,}\b/.test(line)) bad.push(`${file}:${i + 1}: ${line.slice(0, 100)}`);
      }
    }
    assert.deepEqual(bad, []);
  });
});
