// Text added for issue 13 (loading), English and Chinese (see i18n.ts).
export const en = {
  'loading.placeholder': '',
};

export const zh: Record<keyof typeof en, string> = {
  'loading.placeholder': '',
};
