// The section navigation: links that clear the sticky bar, the section in
// view marked (aria-current) and kept in the URL (`section=<id>` in the hash
// state), and deep links (`#section=rope` or `#rope`) that land on their
// section once the widgets above it have laid out.
import { isKey, lang, t } from './i18n.js';
import { deleteParam, getParam, setParam } from './state.js';

let current = '';
/** While a click's smooth scroll runs, the sections it passes are not "current". */
let travelling = false;
/** Until the reader moves the page, a deep link's section is kept in place. */
let pinned: HTMLElement | undefined;
let observing = false;
/** Re-reads the current section (set once the observer runs). */
let refresh = (): void => {};

const sections = (): HTMLElement[] => Array.from(document.querySelectorAll<HTMLElement>('main > section'));

/** Marks the link of section `id` (or none) and scrolls the nav strip so it is visible. */
function mark(id: string): void {
  current = id;
  const nav = document.getElementById('nav');
  if (!nav) return;
  for (const a of nav.querySelectorAll<HTMLAnchorElement>('a')) {
    const on = a.dataset.section === id;
    if (on) a.setAttribute('aria-current', 'location');
    else a.removeAttribute('aria-current');
    // One-line (phone) nav: bring the current link into the strip's view,
    // without scrolling the page itself.
    if (on && nav.scrollWidth > nav.clientWidth) {
      const left = a.offsetLeft - (nav.clientWidth - a.offsetWidth) / 2;
      nav.scrollTo({ left: Math.max(0, left), behavior: 'instant' });
    }
  }
}

/** The sticky bar's height, for scroll-margin-top (CSS variable --nav-h). */
function trackNavHeight(nav: HTMLElement): void {
  const set = (): void => document.documentElement.style.setProperty('--nav-h', `${Math.ceil(nav.getBoundingClientRect().height)}px`);
  set();
  if (typeof ResizeObserver !== 'undefined') new ResizeObserver(set).observe(nav);
}

/** (Re)builds the links from the section headings (called again on a language change). */
export function buildNav(): void {
  const nav = document.getElementById('nav')!;
  // A switch pressed from the bar is rebuilt here: it keeps the focus.
  const focused = nav.contains(document.activeElement) ? document.activeElement?.id : undefined;
  nav.replaceChildren(
    ...sections().map((s) => {
      const a = document.createElement('a');
      a.href = `#${s.id}`;
      a.dataset.section = s.id;
      // The section's number and a short name; the whole heading as the title.
      const heading = s.querySelector('h2')?.textContent ?? s.id;
      const short = `nav.${s.id}`;
      a.textContent = isKey(short) ? `${/^\d+\.\s*/.exec(heading)?.[0] ?? ''}${t(short)}` : heading;
      a.title = heading;
      a.addEventListener('click', (e) => {
        e.preventDefault();
        go(s);
      });
      return a;
    }),
    navTools(),
  );
  if (!nav.dataset.tracked) {
    nav.dataset.tracked = '1';
    // A deep link's section is marked before the page shows: marking it
    // later would move the links after it (a layout shift).
    const landing = getParam('section');
    if (!current && landing && document.getElementById(landing)?.parentElement?.tagName === 'MAIN') current = landing;
    trackNavHeight(nav);
    watchHeader(nav);
  }
  if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
  mark(current);
}

/**
 * The language and theme switches again, at the end of the sticky bar, for
 * a reader in the middle of the page (shown once the header has scrolled
 * away; style.css). They press the header's own buttons.
 */
function navTools(): HTMLElement {
  const tools = document.createElement('span');
  tools.className = 'nav-tools';
  const proxy = (id: string, label: string, aria?: string): HTMLButtonElement => {
    const b = document.createElement('button');
    b.type = 'button';
    b.id = `nav-${id}`;
    b.textContent = label;
    if (aria) b.setAttribute('aria-label', aria);
    b.addEventListener('click', () => document.getElementById(id)?.click());
    return b;
  };
  const langButton = proxy('lang-switch', t('lang.switch'));
  // It names the other language, in that language.
  langButton.setAttribute('lang', lang() === 'en' ? 'zh-CN' : 'en');
  const themeButton = proxy('theme-switch', '◐', t('theme.switch'));
  tools.append(langButton, themeButton);
  return tools;
}

/** Marks the nav (data-header-gone) while the page header is out of view. */
function watchHeader(nav: HTMLElement): void {
  const header = document.querySelector('header');
  if (!header || typeof IntersectionObserver === 'undefined') return;
  new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (e.isIntersecting) delete nav.dataset.headerGone;
      else nav.dataset.headerGone = '1';
    }
  }).observe(header);
}

/** Elements that only wrap others: too coarse to keep a reader's place by. */
const COARSE = new Set(['HTML', 'BODY', 'MAIN', 'SECTION', 'NAV', 'HEADER', 'FOOTER']);

/**
 * The elements just below the sticky bar, innermost block first, with where
 * their tops are now: what the reader is looking at.
 */
function readingPlace(): Array<{ e: Element; top: number }> {
  const navBottom = document.getElementById('nav')?.getBoundingClientRect().bottom ?? 0;
  const main = document.querySelector('main')?.getBoundingClientRect();
  const xs = main ? [main.left + main.width / 2, main.left + Math.min(40, main.width / 4)] : [window.innerWidth / 2];
  for (let dy = 8; dy < window.innerHeight / 2; dy += 24) {
    for (const x of xs) {
      let e = document.elementFromPoint(x, navBottom + dy);
      while (e && getComputedStyle(e).display.startsWith('inline')) e = e.parentElement;
      if (!e || COARSE.has(e.tagName) || !e.closest('main, footer')) continue;
      const chain: Array<{ e: Element; top: number }> = [];
      for (let p: Element | null = e; p && p.tagName !== 'BODY'; p = p.parentElement) {
        chain.push({ e: p, top: p.getBoundingClientRect().top });
      }
      return chain;
    }
  }
  return [];
}

/**
 * Runs `change` (a language or theme switch, which re-renders text and
 * charts) and keeps what the reader was looking at in the same place on
 * screen: at once, and for the next second while charts and widgets redraw,
 * unless the reader scrolls, types or taps.
 */
export function keepPlace(change: () => void): void {
  const place = readingPlace();
  change();
  const restore = (): void => {
    // The innermost element still in the page (a re-rendered widget may have been replaced).
    const a = place.find((p) => p.e.isConnected);
    if (!a) return;
    const delta = a.e.getBoundingClientRect().top - a.top;
    if (Math.abs(delta) >= 0.5) window.scrollBy({ top: delta, behavior: 'instant' });
  };
  restore();
  let stopped = false;
  const stop = (): void => {
    stopped = true;
    for (const ev of INPUTS) window.removeEventListener(ev, stop);
  };
  // The click that made the change is over; later input is the reader's.
  setTimeout(() => {
    if (!stopped) for (const ev of INPUTS) window.addEventListener(ev, stop, { passive: true });
  }, 0);
  const end = performance.now() + 1000;
  const again = (): void => {
    if (stopped) return;
    restore();
    if (performance.now() < end) requestAnimationFrame(again);
    else stop();
  };
  requestAnimationFrame(again);
}

/** A nav click: smooth scroll to the section, its heading focused, the URL updated. */
function go(s: HTMLElement): void {
  pinned = undefined;
  travelling = true;
  mark(s.id);
  setParam('section', s.id);
  // Sections passed on the way may grow as they mount their widgets: where
  // the smooth scroll ends, the section is placed again and held.
  const done = (): void => {
    if (!travelling) return;
    travelling = false;
    window.removeEventListener('scrollend', done);
    hold(s, 3000);
  };
  window.addEventListener('scrollend', done);
  setTimeout(done, 1500);
  s.scrollIntoView({ behavior: 'smooth', block: 'start' });
  s.querySelector('h2')?.focus({ preventScroll: true });
}

// Any of these means the reader has taken over (a control changed too: its
// content may resize the page, and the view must not jump back).
const INPUTS = ['wheel', 'touchstart', 'keydown', 'pointerdown', 'input', 'change'] as const;

/**
 * Puts `target` at the top (below the nav) and keeps it there while the page
 * above it changes size, for `ms` or until the reader scrolls, types or taps.
 */
function hold(target: HTMLElement, ms: number): void {
  pinned = target;
  const place = (): void => {
    if (pinned === target) target.scrollIntoView({ behavior: 'instant', block: 'start' });
  };
  place();
  let ro: ResizeObserver | undefined;
  const release = (): void => {
    for (const ev of INPUTS) window.removeEventListener(ev, release);
    ro?.disconnect();
    if (pinned !== target) return;
    pinned = undefined;
    refresh();
  };
  for (const ev of INPUTS) window.addEventListener(ev, release, { passive: true });
  if (typeof ResizeObserver !== 'undefined') {
    ro = new ResizeObserver(place);
    ro.observe(document.body);
  }
  setTimeout(release, ms);
}

/**
 * The current section (marked and written to the URL) is the last one whose
 * top has passed a reading line 40% of the way down the space below the
 * sticky nav: a section becomes current as soon as its heading is read, not
 * once the one before has left the upper third (review D4). Above the first
 * section (the page header) none is.
 */
function observe(): void {
  if (observing) return;
  observing = true;
  const update = (): void => {
    if (travelling || pinned) return;
    const navH = document.getElementById('nav')?.getBoundingClientRect().height ?? 0;
    const line = navH + 0.4 * (window.innerHeight - navH);
    const passed = sections().filter((s) => s.getBoundingClientRect().top <= line);
    // At the very top (the header in view) no section is current.
    const id = window.scrollY < 8 ? '' : (passed[passed.length - 1]?.id ?? '');
    if (id === current) return;
    mark(id);
    if (id) setParam('section', id);
    else deleteParam('section');
  };
  let queued = false;
  window.addEventListener('scroll', () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; update(); });
  }, { passive: true });
  window.addEventListener('scrollend', update);
  refresh = update;
  update();
}

/**
 * Lands on the section named in the URL (after the sections have mounted),
 * keeps it in place while content above it still changes size, and from then
 * on follows the reader. Any scroll input of the reader ends the pinning.
 */
export function landOnSection(): void {
  const id = getParam('section');
  const target = id ? document.getElementById(id) : null;
  if (target && target.parentElement?.tagName === 'MAIN') {
    mark(target.id);
    hold(target, 6000);
  }
  // The observer starts once the landing scroll has settled.
  requestAnimationFrame(() => requestAnimationFrame(observe));
}
