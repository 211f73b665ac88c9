// The Stereo Go ladder's labels (terms from the ladder's source text: 段位, 友谊赛). Only the
// labels the ladder screens already look up through t() are here; the ladder screen itself is
// still English and its tables come with its conversion.

import { addStrings } from '../i18n.js';

addStrings({
  en: {
    'ladder.back': 'Back to the ladder',
  },
  zh: {
    'ladder.back': '返回天梯',
  },
});
