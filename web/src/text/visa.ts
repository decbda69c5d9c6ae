// Text added for issue 13 (visa), English and Chinese (see i18n.ts).
export const en = {
  'visa.placeholder': '',
};

export const zh: Record<keyof typeof en, string> = {
  'visa.placeholder': '',
};
