// Text of the start-up badge and loading states, English and Chinese.
export const en = {
  'loading.worker.idle': 'Worker starts when a model is needed',
};

export const zh: Record<keyof typeof en, string> = {
  'loading.worker.idle': 'Worker 在需要模型时才启动',
};
