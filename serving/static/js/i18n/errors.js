// The page's own refusals (errors.js's PageError) and the offline mode's messages (js/offline/:
// a game played in this browser, with no server).

import { addStrings } from '../i18n.js';

addStrings({
  en: {
    'offline.noLevels': '{game} has no AI levels that run in this browser.',
    'offline.noServer': 'This game is played in this browser: it has no server session.',
    'offline.aiSeat': '{seat} is played by the AI: wait for its move, or take the seat.',
    'offline.over': 'The game is over.',
    'offline.workerFailed': 'The AI in this browser stopped working.',
  },
  zh: {
    'offline.noLevels': '{game}没有能在本浏览器中运行的 AI 等级。',
    'offline.noServer': '这局棋在本浏览器中进行，服务器上没有这个对局。',
    'offline.aiSeat': '{seat}由 AI 执棋：请等它落子，或者改由你来下。',
    'offline.over': '对局已经结束。',
    'offline.workerFailed': '本浏览器中的 AI 停止了工作。',
  },
});
