import type { Catalog } from '../words.js';

export const workObject: Catalog['workObject'] = {
  displayType: '电商商品',
  titleUnknown: '商品 {{id}}',
  shop: '店铺',
  price: '价格',
  known: 'platdesk 已知信息',
  knownAge: '{{age}}前查询；打开此面板不扣费',
  notKnown: '尚未查询；打开此面板不扣费',
  lookUpNow: '立即查询 — {{charge}}',
  lookingUp: '正在查询商品 {{id}}（{{charge}}）…',
  lookedUpNow: '刚刚查询：{{charge}}',
  refusedLabel: '无法查询的原因',
  panelClosed: '商品 {{id}} 的详情面板在结果返回前已关闭，结果发在这里。重新打开面板也能看到。',
  offerEnded: '该查询已失效，未查询也未扣费。下方按钮为新的查询。',
  notice: '提示',
  interrupted:
    '该查询因 platdesk 重启而中断，且没有重新执行。可能已经扣费，可用 /platdesk usage 查看你的扣费。',
  failedTitle: '查询失败',
};
