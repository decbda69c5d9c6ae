// Text added for issue 13 (controls), English and Chinese (see i18n.ts).
export const en = {
  'controls.placeholder': '',
};

export const zh: Record<keyof typeof en, string> = {
  'controls.placeholder': '',
};
