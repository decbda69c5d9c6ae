// Modules made by the page's Vite plugins (tools/).

declare module 'virtual:posenc-tex' {
  /** TeX source with its delimiters ('$' or '$$' + TeX) -> KaTeX HTML, typeset at build time. */
  const spans: Readonly<Record<string, string>>;
  export default spans;
}

declare module 'virtual:posenc-tex-later' {
  /** The other sections' spans, the same way (loaded with KaTeX, after section 1). */
  const spans: Readonly<Record<string, string>>;
  export default spans;
}

declare module 'virtual:posenc-sections' {
  /** Each section's id (sections/index.ts) -> its mount function, loaded (tools/sections.mjs). */
  export const loaders: Readonly<Record<string, () => Promise<import('./sections/context.js').Mount>>>;
}
