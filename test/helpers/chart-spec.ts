/** A small zh-CN chart for checking a built chart worker (bundle, image) against the sources. */
import type { TopLevelSpec } from 'vega-lite';
import { CHART_FONT_FAMILY } from '../../src/charts/font.js';

export const SMALL_ZH_CHART: TopLevelSpec = {
  width: 240,
  height: 120,
  title: '近 30 天每日扣费点数',
  data: {
    values: [
      { day: '周一', points: 3 },
      { day: '周二', points: 5 },
    ],
  },
  mark: 'bar',
  encoding: { x: { field: 'day', type: 'nominal' }, y: { field: 'points', type: 'quantitative' } },
  config: { font: CHART_FONT_FAMILY },
};
