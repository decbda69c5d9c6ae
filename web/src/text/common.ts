// Strings shared by the figures of several sections (axes, colour scales), English and Chinese.
export const en = {
  // Colour bars (axes.ts).
  'axes.scale.linear': '',
  'axes.scale.log': ' (log scale)',
  'axes.scale.row': ' (each row ÷ its largest)',
  // Axis names shared by the maps.
  'ax.query': 'query m',
  'ax.key': 'key n',
  'ax.position': 'position',
  'ax.pair': 'pair i',
  'ax.angle': 'angle (rad)',
  'ax.bias': 'bias added to the score',
  'ax.bucket': 'bucket id',
  'ax.weight': 'attention weight',
};

export const zh: Record<keyof typeof en, string> = {
  'axes.scale.linear': '',
  'axes.scale.log': '（对数刻度）',
  'axes.scale.row': '（每行除以该行最大值）',
  'ax.query': 'query m',
  'ax.key': 'key n',
  'ax.position': '位置',
  'ax.pair': '维度对 i',
  'ax.angle': '旋转角（弧度）',
  'ax.bias': '加到注意力分数上的偏置',
  'ax.bucket': '桶编号',
  'ax.weight': '注意力权重',
};
