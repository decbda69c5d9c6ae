/**
 * The two browser engines besides Chromium, as Debian packages them, behind
 * one small interface: Firefox ESR (`firefox-esr`) through WebDriver BiDi
 * (puppeteer-core talks to Firefox directly, no geckodriver), and WebKitGTK's
 * MiniBrowser through WebKitWebDriver (`webkit2gtk-driver`; classic
 * WebDriver, spoken here over fetch) on an Xvfb display. Pages the tests open
 * load tests/browser/record-errors.js first, so script errors are collected
 * the same way in both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

import puppeteer from 'puppeteer-core';

export interface EnginePage {
  goto(url: string): Promise<void>;
  /**
   * Runs `fn` in the page with `arg` and resolves to its awaited result
   * (JSON). `fn` is sent as source text: it may not use anything from the
   * test's scope.
   */
  run<A, R>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  /** Polls `fn` (as `run`) every 100 ms until it returns a truthy value; that value. */
  waitFor<A, R>(fn: (arg: A) => R | Promise<R>, arg: A, timeoutMs: number, what: string): Promise<R>;
  /** Script errors, console errors and warnings and CSP violations so far. */
  errors(): Promise<string[]>;
  close(): Promise<void>;
}

export interface Engine {
  /** The engine and its version, as the browser reports it (e.g. "Firefox 153.8.0"). */
  readonly name: string;
  newPage(viewport?: { width: number; height: number }): Promise<EnginePage>;
  close(): Promise<void>;
}

export const ENGINES = ['firefox', 'webkit'] as const;
export type EngineId = (typeof ENGINES)[number];

export const FIREFOX = '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';

export function launchEngine(id: EngineId): Promise<Engine> {
  return id === 'firefox' ? launchFirefox() : launchWebKit();
}

async function waitFor<R>(poll: () => Promise<R>, timeoutMs: number, what: string): Promise<R> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await poll();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const readErrors = (): string[] => (window as unknown as { __errors?: string[] }).__errors ?? ['record-errors.js did not run'];

async function launchFirefox(): Promise<Engine> {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    // Keep it off the network (updates, telemetry, remote settings).
    extraPrefsFirefox: {
      'app.update.disabledForTesting': true,
      'browser.safebrowsing.update.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
      'network.captive-portal-service.enabled': false,
    },
  });
  const version = (await browser.version()).replace(/^firefox\//i, '');
  return {
    name: `Firefox ${version}`,
    async newPage(viewport = { width: 1280, height: 900 }) {
      const page = await browser.newPage();
      await page.setViewport(viewport);
      const seen: string[] = [];
      page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') seen.push(`console.${m.type()}: ${m.text()}`); });
      page.on('pageerror', (e) => seen.push(`pageerror: ${String(e)}`));
      const self: EnginePage = {
        async goto(url) { await page.goto(url, { waitUntil: 'load', timeout: 120000 }); },
        run: (fn, arg) => page.evaluate(fn as never, arg as never) as Promise<never>,
        waitFor: (fn, arg, timeoutMs, what) => waitFor(() => self.run(fn, arg), timeoutMs, what),
        // The recorder and the console listener both see console errors: keep one of each.
        async errors() { return [...new Set([...(await self.run(readErrors, undefined)), ...seen.filter((s) => s.startsWith('pageerror'))])]; },
        async close() { await page.close(); },
      };
      return self;
    },
    async close() { await browser.close(); },
  };
}

/** A free TCP port on localhost. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The X display of a fresh Xvfb (MiniBrowser needs one) and its process. */
async function startXvfb(): Promise<{ display: string; proc: ChildProcess }> {
  for (let n = 90 + Math.floor(Math.random() * 400); ; n++) {
    if (existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`)) continue;
    const proc = spawn('Xvfb', [`:${n}`, '-screen', '0', '1400x1000x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    const ok = await waitFor(async () => existsSync(`/tmp/.X11-unix/X${n}`) || proc.exitCode !== null, 10000, 'Xvfb')
      .then(() => proc.exitCode === null, () => false);
    if (ok) return { display: `:${n}`, proc };
    proc.kill();
  }
}

interface WebDriverReply { value: unknown }

async function launchWebKit(): Promise<Engine> {
  const xvfb = await startXvfb();
  const port = await freePort();
  // Software GL keeps WebKitGTK working without a GPU. LANG=C, as on many
  // build machines, makes navigator.language "C" (not a BCP 47 tag): the
  // page must cope with it.
  const env = {
    ...process.env, DISPLAY: xvfb.display, LANG: 'C', LC_ALL: 'C', LIBGL_ALWAYS_SOFTWARE: '1', WEBKIT_DISABLE_COMPOSITING_MODE: '1',
  };
  const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`, '--host=127.0.0.1'], { env, stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const reply = (await res.json()) as WebDriverReply;
    if (!res.ok) throw new Error(`WebKitWebDriver ${method} ${path}: ${JSON.stringify(reply.value)}`);
    return reply.value;
  };
  try {
    await waitFor(() => call('GET', '/status').then(() => true, () => false), 20000, 'WebKitWebDriver');
  } catch (e) {
    driver.kill();
    xvfb.proc.kill();
    throw e;
  }
  let version = '';
  const pages = new Set<EnginePage>();
  return {
    get name() { return `WebKitGTK ${version}`; },
    async newPage(viewport = { width: 1280, height: 900 }) {
      // WebKitWebDriver holds one session at a time: a new page ends the last.
      for (const p of [...pages]) await p.close();
      const session = (await call('POST', '/session', { capabilities: { alwaysMatch: { browserName: 'MiniBrowser' } } })) as {
        sessionId: string; capabilities: { browserVersion: string };
      };
      version = session.capabilities.browserVersion;
      const s = `/session/${session.sessionId}`;
      await call('POST', `${s}/timeouts`, { script: 600000, pageLoad: 120000 });
      await call('POST', `${s}/window/rect`, { width: viewport.width, height: viewport.height }).catch(() => undefined);
      const self: EnginePage = {
        async goto(url) { await call('POST', `${s}/url`, { url }); },
        async run(fn, arg) {
          // The function's source goes into the script itself: the page's CSP
          // forbids eval, and WebDriver runs its own scripts outside it.
          const script = `const done = arguments[arguments.length - 1];
            Promise.resolve().then(() => (${fn.toString()})(arguments[0]))
              .then((v) => done({ ok: v === undefined ? null : v }), (e) => done({ err: String(e && e.stack ? e.stack : e) }));`;
          const out = (await call('POST', `${s}/execute/async`, { script, args: [arg ?? null] })) as { ok?: unknown; err?: string };
          if (out.err !== undefined) throw new Error(`in the page: ${out.err}`);
          return out.ok as never;
        },
        waitFor: (fn, arg, timeoutMs, what) => waitFor(() => self.run(fn, arg), timeoutMs, what),
        errors: () => self.run(readErrors, undefined),
        async close() {
          pages.delete(self);
          await call('DELETE', s).catch(() => undefined);
        },
      };
      pages.add(self);
      return self;
    },
    async close() {
      for (const p of [...pages]) await p.close();
      driver.kill();
      xvfb.proc.kill();
    },
  };
}
