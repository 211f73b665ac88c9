// The AI levels' names. Levels are data (checkpoints/<game>/levels.json, the offline models'
// levels.json, and the service's baseline levels "Random" and "MCTS 32" for a game without
// trained ones) named by a label such as "club"; the page says the usual ones in words of the
// chosen language and any other label as it is.

import { addStrings, t, tOr } from '../i18n.js';

addStrings({
  en: {
    'level.Random': 'Random',
    'level.mcts': 'MCTS {n}',
    'level.novice': 'novice',
    'level.beginner': 'beginner',
    'level.casual': 'casual',
    'level.club': 'club',
    'level.strong': 'strong',
    'level.expert': 'expert',
    'level.elite': 'elite',
    'level.candidate': 'candidate master',
    'level.master': 'master',
    'level.grandmaster': 'grandmaster',
    'level.perfect': 'perfect',
    'level.elo': '{level} (Elo {elo})',
    'level.option': '{ai}: {level}',
  },
  zh: {
    'level.Random': '随机落子',
    'level.mcts': '蒙特卡洛树搜索 {n} 次',
    'level.novice': '新手',
    'level.beginner': '入门',
    'level.casual': '休闲',
    'level.club': '棋社',
    'level.strong': '高手',
    'level.expert': '专家',
    'level.elite': '精英',
    'level.candidate': '候补大师',
    'level.master': '大师',
    'level.grandmaster': '特级大师',
    'level.perfect': '完美',
    'level.elo': '{level}（Elo 等级分 {elo}）',
    'level.option': '{ai}：{level}',
  },
});

/** A level's label in the current language ("club" -> 棋社); unknown labels as they are. */
export function levelName(label) {
  const search = /^MCTS (\d+)$/.exec(label); // the baseline: a tree search of N simulations
  return search ? t('level.mcts', { n: search[1] }) : tOr(`level.${label}`, label);
}
