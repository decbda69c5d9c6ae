// Text added for issue 13 (visb), English and Chinese (see i18n.ts).
export const en = {
  'visb.placeholder': '',
};

export const zh: Record<keyof typeof en, string> = {
  'visb.placeholder': '',
};
