// Board kinds -> how the game screen draws them. Every position from the service names its
// board kind (position.board.kind, from the game's Game.board_view in envs/boards.py): the
// generic "grid" and "text" kinds draw any game, and the four shipped games have pictures of
// their own. A kind the page does not know is drawn as text, so every game stays playable.

import { pointBoard } from './points.js';
import { fangqi, jiugong } from './layouts.js';
import { stereoGoBoard } from './cylinder.js';
import { gridBoard } from './grid.js';
import { textBoard } from './text.js';
import { trigoldenScreen } from '../trigolden/screen.js';

const BOARDS = new Map();

/**
 * Add a board kind. ``make(session, run)`` returns {el, update}. ``screen``: the board brings
 * its own seats, actions and status panels (TriGolden), so the game screen adds none.
 */
export function registerBoard(kind, make, { screen = false } = {}) {
  BOARDS.set(kind, { kind, make, screen });
}

/** The board entry for a position's kind (the text board for a kind not registered). */
export function boardFor(position) {
  const kind = position.board ? position.board.kind : 'text';
  return BOARDS.get(kind) || BOARDS.get('text');
}

function lastEventMove(session) {
  const moves = [...session.view.moves, ...session.view.pending];
  return moves.length ? moves[moves.length - 1] : null;
}

registerBoard('grid', gridBoard);
registerBoard('text', textBoard);
registerBoard('jiugong', (session) => pointBoard(session, jiugong, { lastMove: lastEventMove }));
registerBoard('fangqi', (session) => pointBoard(session, fangqi, { lastMove: lastEventMove }));
registerBoard('stereo_go', stereoGoBoard);
registerBoard('trigolden', trigoldenScreen, { screen: true });
