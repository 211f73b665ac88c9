// Labels shared by every screen: the top bar, the error bar, dialogs, the games' and seats'
// names, and the API's error titles. Chinese terms follow the games' source texts.

import { addStrings, t } from '../i18n.js';

addStrings({
  en: {
    'top.subtitle': 'board games against people and trained AI levels',
    'top.ladder': 'Ladder',
    'top.api': 'API',
    'top.language': 'Language',
    'top.dismiss': 'dismiss',
    'page.loading': 'Loading…',
    'page.noscript': 'This page needs JavaScript (ES modules).',
    'dialog.ok': 'OK',
    'dialog.cancel': 'Cancel',
    'dialog.close': 'Close',
    'game.jiugong': 'Jiugong Shuang Cheng',
    'game.fangqi': 'Jieshou Fang Qi',
    'game.trigolden': 'TriGolden',
    'game.stereo_go': 'Stereo Go',
    'game.jiugong.other': '九宫双承棋',
    'game.fangqi.other': '界首方棋',
    'game.trigolden.other': '頂鑫棋',
    'game.stereo_go.other': '立体围棋',
    'seat.south': 'south',
    'seat.north': 'north',
    'seat.black': 'black',
    'seat.white': 'white',
    'seat.p1': 'P1',
    'seat.p2': 'P2',
    'api.0': 'Connection problem',
    'api.401': 'Not signed in to this session',
    'api.403': 'Not your seat',
    'api.404': 'Not found',
    'api.409': 'Not possible now',
    'api.413': 'Request too large',
    'api.422': 'Not accepted',
    'api.503': 'Service unavailable',
    'api.other': 'Error {status}',
    'api.noDetails': 'no details',
    'api.unreachable': 'cannot reach the server ({why})',
    'api.gone': 'That game is no longer on the server; start a new one.',
  },
  zh: {
    'top.subtitle': '与真人或训练好的 AI 对弈的棋类游戏',
    'top.ladder': '天梯',
    'top.api': 'API',
    'top.language': '语言',
    'top.dismiss': '关闭',
    'page.loading': '加载中…',
    'page.noscript': '本页面需要 JavaScript（ES 模块）。',
    'dialog.ok': '确定',
    'dialog.cancel': '取消',
    'dialog.close': '关闭',
    'game.jiugong': '九宫双承棋',
    'game.fangqi': '界首方棋',
    'game.trigolden': '顶鑫棋',
    'game.stereo_go': '立体围棋',
    'game.jiugong.other': 'Jiugong Shuang Cheng',
    'game.fangqi.other': 'Jieshou Fang Qi',
    'game.trigolden.other': 'TriGolden',
    'game.stereo_go.other': 'Stereo Go',
    'seat.south': '南方',
    'seat.north': '北方',
    'seat.black': '黑方',
    'seat.white': '白方',
    'seat.p1': '甲方',
    'seat.p2': '乙方',
    'api.0': '连接出错',
    'api.401': '未登录此对局',
    'api.403': '不是你的座位',
    'api.404': '找不到',
    'api.409': '现在无法执行',
    'api.413': '请求过大',
    'api.422': '未被接受',
    'api.503': '服务暂不可用',
    'api.other': '错误 {status}',
    'api.noDetails': '无详细信息',
    'api.unreachable': '无法连接服务器（{why}）',
    'api.gone': '服务器上已没有这局棋，请开始新的一局。',
  },
});

/** A seat's name in the current language ("south" -> 南方). */
export const seatName = (seat) => t(`seat.${seat}`);

/** A game's name in the current language, by catalogue id. */
export const gameName = (id) => t(`game.${id}`);

/** Add a game's own labels (its catalogue entry's ``labels``: name, seats, status facts), so a
 * game added on the server needs no strings here. */
export function addGameLabels(game) {
  if (game && game.labels) addStrings(game.labels);
}
