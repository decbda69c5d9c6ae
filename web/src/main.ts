// The page: loads posenc (here for instant small computations, and in a
// module Worker for models and training), then mounts each section.
import { browserLanguage } from './locale.js'; // first: before any library reads navigator.language
import './style.css';
import './loading.css';

import { compileWasm, init } from 'posenc';
import { loaders } from 'virtual:posenc-sections';

import { WorkerClient } from './client.js';
import { errorText, lang, onLangChange, setLang, t, type Key, type Lang } from './i18n.js';
import { buildNav, keepPlace, landOnSection } from './nav.js';
import { refreshPlots } from './plot.js';
import { Ctx, type Mount } from './sections/context.js';
import { SECTION_IDS } from './sections/index.js';
import { getChoice, getParam, setParam } from './state.js';
import { loadTex, renderRich } from './tex.js';
import { tf, type Vars } from './textfill.js';
import { mountTryIt } from './tryit.js';

/**
 * Re-renders the translated elements under `root` (except those `skip`
 * names); an element's `data-i18n-vars` (JSON) fills its string's placeholders.
 */
function translateIn(root: ParentNode, skip: (e: Element) => boolean = () => false): void {
  const all = (sel: string): HTMLElement[] => Array.from(root.querySelectorAll<HTMLElement>(sel)).filter((e) => !skip(e));
  const text = (e: HTMLElement, key: string): string => {
    const vars = e.dataset.i18nVars;
    return vars === undefined ? t(key as Key) : tf(key as Key, JSON.parse(vars) as Vars);
  };
  for (const e of all('[data-i18n]')) e.textContent = text(e, e.dataset.i18n!);
  for (const e of all('[data-i18n-rich]')) renderRich(e, text(e, e.dataset.i18nRich!));
  for (const e of all('[data-i18n-aria]')) e.setAttribute('aria-label', t(e.dataset.i18nAria as Key));
}

/**
 * Re-renders every translated element; section headings are numbered in page
 * order. `sections: false` (start-up) leaves the inside of the sections to
 * mountSections, which translates each as it mounts it.
 */
function translate(sections = true): void {
  translateIn(document, sections ? undefined : (e) => e.closest('main > section') !== null && e.tagName !== 'H2');
  numberHeadings();
  document.title = t('title');
}

/** Section headings carry their number in page order. */
function numberHeadings(): void {
  document.querySelectorAll<HTMLElement>('main > section > h2').forEach((h, i) => {
    h.textContent = `${i + 1}. ${t(h.dataset.i18n as Key)}`;
  });
}

function setTheme(theme: 'light' | 'dark'): void {
  document.documentElement.dataset.theme = theme;
  document.getElementById('theme-switch')?.setAttribute('aria-pressed', String(theme === 'dark'));
}

/**
 * The sections in page order (sections/index.ts), each with how to get its
 * mount function: the first is in the page's bundle; the others are one
 * chunk (tools/sections.mjs), fetched once the first is on screen (or at
 * once, for a deep link), so the first bundle holds only what it needs.
 */
const SECTIONS: Array<[string, () => Promise<Mount>]> = SECTION_IDS.map((id) => [id, loaders[id]!]);

/** Lets the browser handle input (and maybe paint) between two pieces of start-up work. */
const yieldToBrowser = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Waits until a frame has been drawn (what whenNear and coalesced draws wait for); at most 100 ms (hidden tabs draw none). */
const afterFrame = (): Promise<void> => new Promise((resolve) => {
  const timer = setTimeout(resolve, 100);
  requestAnimationFrame(() => setTimeout(() => {
    clearTimeout(timer);
    resolve();
  }, 0));
});

/** Resolves once the fonts `section`'s laid-out text needs have loaded (at most 1.5 s). */
function fontsLoaded(section: HTMLElement): Promise<void> {
  void section.offsetHeight; // layout starts the loads of the fonts in use
  return Promise.race([document.fonts.ready.then(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, 1500))]);
}

/**
 * A section whose code failed to load or mount says so in its body, in the
 * reader's language (and follows language changes); the sections after it
 * still mount.
 */
function showSectionError(section: HTMLElement, e: unknown): void {
  console.error(e);
  const box = document.createElement('p');
  box.className = 'error section-error';
  box.setAttribute('role', 'alert');
  const show = (): void => { box.textContent = `${t('section.failed')} ${errorText(e)}`; };
  show();
  onLangChange(show, box);
  section.querySelector<HTMLElement>('.body')!.replaceChildren(box);
}

/**
 * Mounts the sections one task each (performance.measure `posenc:mount:<id>`),
 * so the section the reader lands on draws and answers input while the
 * others mount. A section takes no space until its turn (data-mount;
 * loading.css), so nothing below the one mounting comes "near" (whenNear)
 * before its place is known. Each shows (data-shown) once mounted and
 * translated; with a deep link to `landing`, the sections up to it show
 * together once it is mounted, and the page scrolls to it (nav.ts holds it
 * there once all are mounted). Those above it (data-above) are not laid out
 * in full until the page is ready (loading.css: content-visibility).
 */
async function mountSections(ctx: Ctx, deepLink: string | undefined): Promise<void> {
  const landing = deepLink !== undefined && SECTIONS.some(([id]) => id === deepLink) ? deepLink : SECTIONS[0]![0];
  let waiting = true;
  const mounted: HTMLElement[] = [];
  if (landing !== SECTIONS[0]![0]) {
    for (const [id] of SECTIONS.slice(0, SECTIONS.findIndex(([s]) => s === landing))) document.getElementById(id)!.dataset.above = '1';
  }
  // Every section's code, requested together: at once for a deep link,
  // after section 1 has drawn otherwise.
  let mounts: Array<Promise<Mount>> | undefined;
  const loadAll = (): Array<Promise<Mount>> => (mounts ??= SECTIONS.map(([, load]) => {
    const p = load();
    p.catch(() => undefined); // its section shows the failure when it mounts
    return p;
  }));
  // A deep link mounts the sections up to its own in one task: their code first.
  if (landing !== SECTIONS[0]![0]) await Promise.allSettled([loadTex(), ...loadAll()]);
  for (const [k, [id, load]] of SECTIONS.entries()) {
    // KaTeX (for formulas built at run time) loads once the first section is
    // on screen; a deep link waits for it before mounting its sections.
    if (id !== SECTIONS[0]![0] || landing !== id) await loadTex();
    const section = document.getElementById(id)!;
    section.dataset.mount = '1';
    const t0 = performance.now();
    try {
      const mount = k === 0 && landing === id ? await load() : await loadAll()[k]!;
      mount(ctx, section.querySelector<HTMLElement>('.body')!);
      mountTryIt(id, section);
    } catch (e) {
      showSectionError(section, e);
    }
    translateIn(section);
    numberHeadings();
    performance.measure(`posenc:mount:${id}`, { start: t0 });
    mounted.push(section);
    if (id === landing) {
      waiting = false;
      if (landing !== SECTIONS[0]![0]) section.scrollIntoView({ behavior: 'instant', block: 'start' });
      // It shows once the fonts its text uses (KaTeX's, for the formulas in
      // its intro) have loaded: a font arriving after the first paint
      // re-wraps the lines below it, a layout shift. It waits in place
      // (scrolled to), so the frames drawn meanwhile lay out nothing else.
      await fontsLoaded(section);
    }
    if (!waiting) {
      for (const m of mounted.splice(0)) m.dataset.shown = '1';
    }
    if (id === landing) {
      // It draws (and starts what is near it) before the next section mounts.
      await afterFrame();
      await afterFrame();
    }
    // With a deep link, the sections above the landing one mount in one
    // task with it: no frame is spent on sections the reader does not see yet.
    if (!waiting) await yieldToBrowser();
  }
}

async function main(): Promise<void> {
  // The .wasm is fetched and compiled once, here, while the text is set up;
  // the Worker (started by the first section that needs a model)
  // instantiates the same compiled module.
  const compiled = compileWasm();
  compiled.catch(() => undefined);
  const prefersDark = window.matchMedia('(prefers-color-scheme: dark)').matches;
  setTheme(getChoice('theme', prefersDark ? 'dark' : 'light', ['light', 'dark'] as const));
  const browserLang: Lang = browserLanguage().toLowerCase().startsWith('zh') ? 'zh' : 'en';
  setLang(getChoice('lang', browserLang, ['en', 'zh'] as const));
  translate(false);
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
  // Both switches keep the reader's place (nav.ts keepPlace): the text and
  // charts re-render, what was on screen stays where it was.
  langButton.addEventListener('click', () => keepPlace(() => {
    const next: Lang = lang() === 'en' ? 'zh' : 'en';
    setParam('lang', next);
    setLang(next);
  }));
  document.getElementById('theme-switch')!.addEventListener('click', () => keepPlace(() => {
    const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    setParam('theme', next);
    setTheme(next);
    refreshPlots();
    window.dispatchEvent(new Event('posenc-theme'));
  }));
  for (const h of document.querySelectorAll<HTMLElement>('main h2')) h.tabIndex = -1;
  buildNav();
  const badge = document.getElementById('runtime')!;
  badge.textContent = `${t('runtime')}${t('colon')}…`;
  // loading.css shows the page once its text is in place, and the sections
  // once they are mounted: nothing the reader sees moves while it loads.
  document.documentElement.dataset.booted = '1';

  performance.mark('posenc:translated');
  const modelBase = new URL('models/', document.baseURI).href;
  const module = await compiled;
  performance.mark('posenc:compiled');
  const pe = await init({ module });
  performance.mark('posenc:instantiated');
  const worker = new WorkerClient({ modelBase, module, simd: pe.simd });
  const flavour = (simd: boolean): string => (simd ? 'SIMD' : t('runtime.scalar'));
  let workerFlavour: boolean | undefined;
  const showBadge = (): void => {
    const w = workerFlavour === undefined ? t('loading.worker.idle') : `Worker ${flavour(workerFlavour)}`;
    badge.textContent = `${t('runtime')}${t('colon')}wasm ${flavour(pe.simd)} (${pe.target}) · ${w}`;
  };
  showBadge();
  onLangChange(showBadge);
  worker.onStart((w) => {
    workerFlavour = w.simd;
    showBadge();
  });
  badge.dataset.state = 'ready';
  document.getElementById('loading')?.remove();

  const ctx = new Ctx(pe, worker);
  await mountSections(ctx, getParam('section'));
  performance.mark('posenc:mounted');
  document.documentElement.dataset.ready = '1';
  landOnSection();
}

main().catch((e: unknown) => {
  const p = document.getElementById('loading') ?? document.body.appendChild(document.createElement('p'));
  p.textContent = `${t('error.start')}${e instanceof Error ? e.message : String(e)}`;
  p.className = 'error';
  document.documentElement.dataset.ready = 'error';
  throw e;
});
