// The Stereo Go board. The cylinder is drawn horizontally (seed 003: 横向摆放, NP at the left)
// where the board's space is wider than tall, and upright (NP above) where it is not, e.g. a
// phone held upright (竖向观看). The choice is made again at every redraw and window resize
// (an orientation change resizes the window); the turn of the cylinder is kept across it.

import { pointBoard } from './points.js';
import { cylinderControls, isCylinder, stereoGo } from './layouts.js';
import { cylinderTurn } from './axes.js';
import { stereoGoViews } from './stereo_views.js';

const MAX_HEIGHT = 0.82; // of the window: style.css, .board-svg { max-height: 82vh }

/**
 * True when the board's space (its width by the height an upright board may take) is at least
 * as wide as tall: then the horizontal drawing (wider than tall) comes out the larger.
 */
function wideSpace(el) {
  return el.clientWidth >= window.innerHeight * MAX_HEIGHT;
}

/**
 * The Stereo Go board for ``session``: {el, update}, like pointBoard's. The cylinder comes with
 * its 3-D view, axis bar and lens (js/boards/stereo_views.js), all turned by one shared turn.
 */
export function stereoGoBoard(session) {
  const options = { lastMove: (sess) => sess.position.state.last_move, quiet: true };
  if (!isCylinder(session)) return pointBoard(session, stereoGo, options);
  const turn = cylinderTurn();
  let horizontal = false;
  let listening = false;
  const board = pointBoard(session, (sess) => stereoGo(sess, { shift: turn.shift, horizontal }), {
    ...options,
    controls: () => cylinderControls(horizontal, (step) => turn.set(turn.shift + step)),
  });

  function onResize() {
    if (!board.el.isConnected) { // the game screen was left
      window.removeEventListener('resize', onResize);
      listening = false;
    } else if (wideSpace(board.el) !== horizontal) {
      update();
    }
  }

  function update() {
    horizontal = wideSpace(board.el);
    board.el.classList.toggle('horizontal', horizontal);
    board.el.dataset.orientation = horizontal ? 'horizontal' : 'vertical';
    board.update();
    if (!listening && board.el.isConnected) {
      window.addEventListener('resize', onResize);
      listening = true;
    }
  }

  return stereoGoViews(session, { el: board.el, update }, turn);
}
