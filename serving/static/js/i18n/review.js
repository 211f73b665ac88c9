// Labels of the post-game review (js/review/).
import { addStrings } from '../i18n.js';

addStrings({
  en: {
    'review.title': 'Review',
    'review.open': 'Review the game',
    'review.loading': 'Reviewing…',
    'review.graph': 'Value over the moves ({seat}\'s view, top = {seat} winning)',
    'review.mistakes': 'Key mistakes',
    'review.mistake': 'move {number}, {player}: played {move}, preferred {preferred} (−{loss})',
    'review.position': 'Shown: the position after {ply} moves',
    'review.start': 'Shown: the starting position',
    'review.none': 'No mistakes found.',
  },
  zh: {
    'review.title': '复盘',
    'review.open': '复盘本局',
    'review.loading': '正在复盘……',
    'review.graph': '逐手局面评估（{seat} 方视角，越高越有利于 {seat}）',
    'review.mistakes': '关键失误',
    'review.mistake': '第 {number} 手，{player}：实战 {move}，建议 {preferred}（−{loss}）',
    'review.position': '显示：第 {ply} 手之后的局面',
    'review.start': '显示：初始局面',
    'review.none': '未发现失误。',
  },
});
