// The browser's language, made safe before any other module reads it (main.ts
// imports this file first). Some browsers report a tag that is not BCP 47:
// WebKitGTK under LANG=C says "C". A library that hands navigator.language to
// Intl while it loads (uPlot builds its number format at import) would throw a
// RangeError there and stop the whole page. On this page an invalid tag is
// replaced by what it names when it is a POSIX locale name ("zh_CN.UTF-8" is
// zh-CN), else by the first valid tag in navigator.languages, else "en".

/** Whether Intl accepts `tag` as a locale. */
function isLocale(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/** `tag` if valid; a POSIX name ("zh_CN.UTF-8", "de_DE@euro") as the tag it names; else undefined ("C", "POSIX"). */
function readable(tag: string): string | undefined {
  if (isLocale(tag)) return tag;
  const posix = tag.split(/[.@]/)[0]!.replace(/_/g, '-');
  return posix.length >= 2 && isLocale(posix) ? posix : undefined;
}

const reported = navigator.language;
const language = readable(reported) ?? navigator.languages.map(readable).find((t) => t !== undefined) ?? 'en';
if (language !== reported) Object.defineProperty(navigator, 'language', { configurable: true, get: () => language });

/** The reader's language as a valid BCP 47 tag (what decides the page's first language). */
export const browserLanguage = (): string => language;
