// The point boards (Jiugong, Fang Qi, Stereo Go): the board's name for screen readers and the
// cylinder's turning controls.

import { addStrings } from '../i18n.js';

addStrings({
  en: {
    'board.label': '{game} board',
    'board.turnUp': '▲ turn',
    'board.turnDown': 'turn ▼',
    'board.turnLeft': '◀ turn',
    'board.turnRight': 'turn ▶',
    'board.turnTitle.up': 'turn the cylinder: the picture moves up',
    'board.turnTitle.down': 'turn the cylinder: the picture moves down',
    'board.turnTitle.left': 'turn the cylinder: the picture moves left',
    'board.turnTitle.right': 'turn the cylinder: the picture moves right',
    'board.seamHorizontal': 'the rings wrap around: the bottom edge joins the top',
    'board.seamVertical': 'the rings wrap around: the right edge joins the left',
  },
  zh: {
    'board.label': '{game}棋盘',
    'board.turnUp': '▲ 转动',
    'board.turnDown': '转动 ▼',
    'board.turnLeft': '◀ 转动',
    'board.turnRight': '转动 ▶',
    'board.turnTitle.up': '转动圆柱：画面向上移',
    'board.turnTitle.down': '转动圆柱：画面向下移',
    'board.turnTitle.left': '转动圆柱：画面向左移',
    'board.turnTitle.right': '转动圆柱：画面向右移',
    'board.seamHorizontal': '纬线首尾相接：下边与上边相连',
    'board.seamVertical': '纬线首尾相接：右边与左边相连',
  },
});
