// Replays games through the in-browser rules engines (serving/static/js/offline) under node
// and reports what tests/test_web_offline.py compares with the Python engines.
// stdin: {"game": id, "options": {...}, "games": [{"moves": [...], "plies": [...]}, ...]}
// (options: the game's configuration, as an entry of offline/models/index.json gives it)
// stdout: one report per requested ply: {legal, to_play, terminal, returns, result, json,
// board, facts, observation}
import { readFileSync } from 'node:fs';

const request = JSON.parse(readFileSync(0, 'utf8'));
// The rules module of the game, built as the page's registry builds it (offline/games.js).
const { rules } = await import(`../../serving/static/js/offline/${request.game}.js`);
const game = rules(request.options || {});
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
        board: game.boardView(state),
        facts: game.statusFacts(state),
        observation: terminal ? null : Array.from(game.observation(state)),
      });
    }
    if (ply < moves.length) state = game.apply(state, game.moveToAction(state, moves[ply]));
  }
}
process.stdout.write(JSON.stringify(reports));
