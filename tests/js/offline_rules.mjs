// Replays games through the in-browser rules engines (serving/static/js/offline) under node
// and reports what tests/test_web_offline.py compares with the Python engines.
// stdin: {"game": id, "games": [{"moves": [...], "plies": [...]}, ...]}, or for a Stereo Go
// variant games.js has no levels for, "options" ({board, rules, komi}) instead of "game"
// stdout: one report per requested ply: {legal, to_play, terminal, returns, result, json,
// observation}
import { readFileSync } from 'node:fs';
import { GAMES } from '../../serving/static/js/offline/games.js';
import { stereoGo } from '../../serving/static/js/offline/stereo_go.js';

const request = JSON.parse(readFileSync(0, 'utf8'));
const game = request.options ? stereoGo(request.options) : GAMES[request.game];
const reports = [];
for (const { moves, plies } of request.games) {
  const wanted = new Set(plies);
  let state = game.initialState();
  for (let ply = 0; ply <= moves.length; ply += 1) {
    if (wanted.has(ply)) {
      const terminal = game.isTerminal(state);
      reports.push({
        legal: game.legalActions(state).map((a) => game.actionToMove(a)),
        to_play: terminal ? null : game.playerNames[game.toPlay(state)],
        terminal,
        returns: game.returns(state),
        result: game.result(state),
        json: game.toJson(state),
        observation: terminal ? null : Array.from(game.observation(state)),
      });
    }
    if (ply < moves.length) state = game.apply(state, game.moveToAction(state, moves[ply]));
  }
}
process.stdout.write(JSON.stringify(reports));
