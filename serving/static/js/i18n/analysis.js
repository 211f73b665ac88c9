// Labels of the analysis mode (js/analysis/).
import { addStrings } from '../i18n.js';

addStrings({
  en: {
    'analysis.title': 'Analysis',
    'analysis.toggle': 'Analysis mode',
    'analysis.running': 'searching… {visits} visits, {seconds} s',
    'analysis.final': 'done: {visits} visits, {seconds} s',
    'analysis.value': 'Win rate of the side to move: {rate}%',
    'analysis.lead': 'Score lead: {lead} points',
    'analysis.move': 'Move',
    'analysis.visits': 'Visits',
    'analysis.rate': 'Win rate',
    'analysis.pv': 'Variation',
    'analysis.none': 'No analysis: the game is over.',
    'analysis.budget': '{visits} visits',
    'analysis.levelBudget': 'the level\'s visits',
  },
  zh: {
    'analysis.title': '分析',
    'analysis.toggle': '分析模式',
    'analysis.running': '搜索中…… {visits} 次访问，{seconds} 秒',
    'analysis.final': '完成：{visits} 次访问，{seconds} 秒',
    'analysis.value': '行棋方胜率：{rate}%',
    'analysis.lead': '目差领先：{lead} 目',
    'analysis.move': '着法',
    'analysis.visits': '访问',
    'analysis.rate': '胜率',
    'analysis.pv': '变化',
    'analysis.none': '对局已结束，无法分析。',
    'analysis.budget': '{visits} 次访问',
    'analysis.levelBudget': '按级别默认访问数',
  },
});
