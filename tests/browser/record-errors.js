// Loaded first (a classic script) by the pages the other engines' tests open:
// it keeps every script error, unhandled rejection, console error or warning
// and CSP violation in window.__errors, for drivers that cannot listen to the
// console (WebKitWebDriver speaks classic WebDriver only). The Chromium and
// Firefox drivers read the console too; this list is what all three share.
(() => {
  const errors = [];
  window.__errors = errors;
  const text = (v) => (v && v.stack ? String(v.stack) : String(v));
  addEventListener('error', (e) => errors.push(`error: ${e.message} (${e.filename || '?'}:${e.lineno || 0})`));
  addEventListener('unhandledrejection', (e) => errors.push(`unhandledrejection: ${text(e.reason)}`));
  addEventListener('securitypolicyviolation', (e) => errors.push(`csp: ${e.violatedDirective} ${e.blockedURI}`));
  for (const level of ['error', 'warn']) {
    const original = console[level].bind(console);
    console[level] = (...args) => {
      errors.push(`console.${level}: ${args.map(text).join(' ')}`);
      original(...args);
    };
  }
})();
