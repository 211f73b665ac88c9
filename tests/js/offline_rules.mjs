// Replays games through the in-browser rules engines (serving/static/js/offline) under node
// and reports what tests/test_web_offline.py compares with the Python engines.
// stdin: {"game": id, "games": [{"moves": [...], "plies": [...]}, ...]}
// stdout: one report per requested ply: {legal, to_play, terminal, returns, json, board, facts,
// observation}
import { readFileSync } from 'node:fs';

const request = JSON.parse(readFileSync(0, 'utf8'));
// The rules module of the game, as the page's registry loads it (offline/games.js).
const { rules: game } = await import(`../../serving/static/js/offline/${request.game}.js`);
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
        json: game.toJson(state),
        board: game.boardView(state),
        facts: game.statusFacts(state),
        observation: terminal ? null : Array.from(game.observation(state)),
      });
    }
    if (ply < moves.length) state = game.apply(state, game.moveToAction(state, moves[ply]));
  }
}
process.stdout.write(JSON.stringify(reports));
