// The page: loads posenc (here for instant small computations, and in a
// module Worker for models and training), then mounts each section.
import './style.css';

import { init } from 'posenc';

import { WorkerClient } from './client.js';
import { lang, onLangChange, setLang, t, type Key, type Lang } from './i18n.js';
import { refreshPlots } from './plot.js';
import { Ctx } from './sections/context.js';
import { mountBias } from './sections/bias.js';
import { mountBugs } from './sections/bugs.js';
import { mountDerivation } from './sections/derivation.js';
import { mountExamples } from './sections/examples.js';
import { mountExtrapolation } from './sections/extrapolation.js';
import { mountOrder } from './sections/order.js';
import { mountPipeline } from './sections/pipeline.js';
import { mountPositions } from './sections/positions.js';
import { mountQuiz } from './sections/quiz.js';
import { mountRope } from './sections/rope.js';
import { mountSinusoidal } from './sections/sinusoidal.js';
import { mountTaxonomy } from './sections/taxonomy.js';
import { mountTrain } from './sections/train.js';
import { getChoice, setParam } from './state.js';
import { renderRich } from './tex.js';

/** Re-renders every translated element; section headings are numbered in page order. */
function translate(): void {
  for (const e of document.querySelectorAll<HTMLElement>('[data-i18n]')) e.textContent = t(e.dataset.i18n as Key);
  for (const e of document.querySelectorAll<HTMLElement>('[data-i18n-rich]')) renderRich(e, t(e.dataset.i18nRich as Key));
  for (const e of document.querySelectorAll<HTMLElement>('[data-i18n-aria]')) e.setAttribute('aria-label', t(e.dataset.i18nAria as Key));
  document.querySelectorAll<HTMLElement>('main > section > h2').forEach((h, i) => {
    h.textContent = `${i + 1}. ${t(h.dataset.i18n as Key)}`;
  });
  document.title = t('title');
}

function setTheme(theme: 'light' | 'dark'): void {
  document.documentElement.dataset.theme = theme;
  document.getElementById('theme-switch')?.setAttribute('aria-pressed', String(theme === 'dark'));
}

function buildNav(): void {
  const nav = document.getElementById('nav')!;
  nav.replaceChildren(
    ...Array.from(document.querySelectorAll<HTMLElement>('main > section'), (s) => {
      const a = document.createElement('a');
      a.href = `#${s.id}`;
      a.textContent = s.querySelector('h2')?.textContent ?? s.id;
      a.addEventListener('click', (e) => {
        e.preventDefault();
        s.scrollIntoView({ behavior: 'smooth' });
        s.querySelector('h2')?.focus({ preventScroll: true });
      });
      return a;
    }),
  );
}

async function main(): Promise<void> {
  const prefersDark = window.matchMedia('(prefers-color-scheme: dark)').matches;
  setTheme(getChoice('theme', prefersDark ? 'dark' : 'light', ['light', 'dark'] as const));
  const browserLang: Lang = navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
  setLang(getChoice('lang', browserLang, ['en', 'zh'] as const));
  translate();
  onLangChange(() => {
    translate();
    buildNav();
    refreshPlots();
  });
  // The button names the other language, in that language.
  const langButton = document.getElementById('lang-switch')!;
  const markButton = (): void => langButton.setAttribute('lang', lang() === 'en' ? 'zh-CN' : 'en');
  markButton();
  onLangChange(markButton);
  langButton.addEventListener('click', () => {
    const next: Lang = lang() === 'en' ? 'zh' : 'en';
    setParam('lang', next);
    setLang(next);
  });
  document.getElementById('theme-switch')!.addEventListener('click', () => {
    const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    setParam('theme', next);
    setTheme(next);
    refreshPlots();
    window.dispatchEvent(new Event('posenc-theme'));
  });
  for (const h of document.querySelectorAll<HTMLElement>('main h2')) h.tabIndex = -1;
  buildNav();

  const modelBase = new URL('models/', document.baseURI).href;
  const worker = new WorkerClient();
  const [pe, w] = await Promise.all([init(), worker.call('init', { modelBase })]);
  const badge = document.getElementById('runtime')!;
  const showBadge = (): void => {
    badge.textContent = `${t('runtime')}${t('colon')}wasm ${pe.simd ? 'SIMD' : t('runtime.scalar')} (${pe.target}) · Worker ${w.simd ? 'SIMD' : t('runtime.scalar')}`;
  };
  showBadge();
  onLangChange(showBadge);
  badge.dataset.state = 'ready';
  document.getElementById('loading')?.remove();

  const ctx = new Ctx(pe, worker);
  const body = (id: string): HTMLElement => document.querySelector<HTMLElement>(`#${id} .body`)!;
  mountOrder(ctx, body('order'));
  mountTaxonomy(ctx, body('taxonomy'));
  mountPipeline(ctx, body('pipeline'));
  mountSinusoidal(ctx, body('sinusoidal'));
  mountDerivation(ctx, body('derivation'));
  mountRope(ctx, body('rope'));
  mountBias(ctx, body('bias'), modelBase);
  mountExamples(ctx, body('examples'));
  mountPositions(ctx, body('positions'));
  mountExtrapolation(ctx, body('extrapolation'));
  mountBugs(ctx, body('bugs'));
  mountTrain(ctx, body('train'));
  mountQuiz(ctx, body('quiz'));
  translate();
  document.documentElement.dataset.ready = '1';
  const target = location.hash.match(/(?:^#|&)section=([a-z]+)/)?.[1];
  if (target) document.getElementById(target)?.scrollIntoView();
}

main().catch((e: unknown) => {
  const p = document.getElementById('loading') ?? document.body.appendChild(document.createElement('p'));
  p.textContent = `posenc failed to start: ${e instanceof Error ? e.message : String(e)}`;
  p.className = 'error';
  document.documentElement.dataset.ready = 'error';
  throw e;
});
