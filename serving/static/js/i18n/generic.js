// Labels of the parts that serve every game: the generic grid and text boards, the line of
// status facts. A game's own labels (its name, seats, facts) come with its catalogue entry.

import { addStrings } from '../i18n.js';

addStrings({
  en: {
    'state.separator': '; ',
    'board.column': 'column {column}',
    'board.textMoves': 'Choose a move:',
  },
  zh: {
    'state.separator': '；',
    'board.column': '第 {column} 列',
    'board.textMoves': '选择一步棋：',
  },
});
