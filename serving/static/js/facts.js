// The line under the board: the position's status facts (envs/boards.py, ``fact``) in the
// page's language. A fact is a label key with arguments, so no game needs code here: its
// labels are in the page's tables, or come with the game's catalogue entry (``labels``).

import { t } from './i18n.js';
import './i18n/game.js';
import './i18n/generic.js';
import { seatName } from './i18n/common.js';

/** One argument as shown: a seat's name, a label, a value per seat, or the value itself. */
function shown(value) {
  if (value && typeof value === 'object') {
    if ('seat' in value) return seatName(value.seat);
    if ('label' in value) return t(value.label);
    if ('seats' in value) {
      return Object.entries(value.seats).map(([seat, v]) => `${seatName(seat)} ${v}`).join(', ');
    }
  }
  return value;
}

/** The facts of a position as one line ("" when it has none). */
export function factsText(facts) {
  return (facts || []).map((fact) => t(fact.key, Object.fromEntries(
    Object.entries(fact.args || {}).map(([name, value]) => [name, shown(value)]))))
    .join(t('state.separator'));
}
