// How the ladder's data reads in the chosen language: players' names (an AI player's from its
// parts, `ai: {label, options}` in every player entry, docs/ladder.md), boards, scoring rules
// and colours. Used by the ladder screen and the ladder panel of the game screen.

import { t, tOr } from '../i18n.js';
import '../i18n/ladder.js';
import { levelName } from '../i18n/levels.js';

/** A board as people write it: "9×9", or the cylinder in words. */
export const boardName = (board) => (board === 'cylinder'
  ? t('ladder.boardShort.cylinder') : String(board).replace('x', '×'));

/** Scoring rules in a word: territory or area (数目 / 数子). */
export const rulesName = (rules) => tOr(`ladder.rulesShort.${rules}`, rules);

/** A colour (black / white) in the chosen language. */
export const colourName = (colour) => tOr(`ladder.colour.${colour}`, colour);

/** One option of an AI level's table in words ("9×9", "area", "400 moves max"). */
function optionWords(name, value) {
  if (name === 'board') return boardName(value);
  if (name === 'rules') return rulesName(value);
  if (name === 'max_moves') return t('ladder.maxMoves', { n: value });
  return `${name} ${value}`;
}

/**
 * A player's name as shown: a person's as they chose it; an AI player's written from its
 * parts in the chosen language ("AI master · 9×9, area" / "AI 大师 · 9×9，数子"), else the
 * name the server gave it.
 */
export function playerName(player) {
  if (!player) return '';
  const ai = player.kind === 'ai' ? player.ai : null;
  if (!ai) return player.name;
  const label = levelName(ai.label);
  if (!ai.options) return t('ladder.aiName', { label });
  const options = Object.entries(ai.options).map(([k, v]) => optionWords(k, v))
    .join(t('ladder.listSep'));
  return t('ladder.aiNameWith', { label, options });
}
