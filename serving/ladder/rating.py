"""Rating a finished ladder game in the transaction that finishes its session.

:func:`rate_finished` is a commit hook of the session store (:mod:`serving.db`): it runs
inside the compare-and-set that writes a ladder session's end, so the game's record and both
players' new points commit with the result that causes them, or not at all. Exactly once: the
session's compare-and-set lets one end-of-game write win, and the ladder game itself moves
from ``playing`` to ``done`` by a conditional update that only one transaction can make. The
players' ``rank_change`` (or ``game_over``) events are published in the same transaction.
A rated game against an AI level that repeats one of the pair's last games is recorded as
``unrated``, with the reason (the repeat rule, :mod:`serving.ladder.farming`).
"""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session

from serving.db import SessionData
from serving.ladder import farming, notices, rules
from serving.ladder.store import LadderGameRow, PlayerRow, last_meetings, lock_players


def game_facts(data: SessionData) -> tuple[str, str | None, int, float]:
    """(reason, winning colour or None, moves both sides made, when it ended) of a finished
    session. Passes are moves; White's automatic handicap passes are no events, so they are
    not. A loss on time ended at its deadline, whenever it was applied."""
    result = data.result or {}
    events = data.games[-1]
    moves = sum(1 for ev in events if ev["t"] == "move")
    ended = data.updated
    if result.get("reason") == "time":
        ended = next((ev["at"] for ev in reversed(events) if ev["t"] == "time_loss"), ended)
    return str(result.get("reason", "")), result.get("winner"), moves, float(ended)


def rate_finished(s: Session, data: SessionData) -> bool:
    """The commit hook: rate ``data``'s ladder game if this write finished it. True when it
    changed ``data.extras`` (the outcome is shown with the session)."""
    info = data.extras.get("ladder")
    if info is None or data.status != "over" or "outcome" in info:
        return False
    taken = s.execute(
        update(LadderGameRow)
        .where(LadderGameRow.id == info["game"], LadderGameRow.status == "playing")
        .values(status="done")
    )
    if taken.rowcount != 1:
        return False  # rated by another write already
    game = s.get(LadderGameRow, info["game"], populate_existing=True)
    assert game is not None
    reason, winner, moves, ended = game_facts(data)
    gap = rules.rank_gap(game.black_points_start, game.white_points_start)
    verdict = rules.classify(reason, winner is None, moves, ended - game.created, gap)
    if verdict.kind == "void":  # not rated, no record kept
        s.delete(game)
        info["outcome"] = {"kind": "void", "why": verdict.why}
        notices.game_over(s, game, "void", info["outcome"], ended)
        return True
    players = lock_players(s, [game.black_id, game.white_id])
    colours = {"black": players[game.black_id], "white": players[game.white_id]}
    game.opening = farming.opening([ev["m"] for ev in data.events if ev["t"] == "move"])
    kind, repeat = verdict.kind, None
    if kind == "rated" and any(p.kind == "ai" for p in colours.values()):
        repeat = _repeat(s, game, None if winner is None else colours[winner].id)
        kind = "unrated" if repeat is not None else kind
    before = {c: p.points for c, p in colours.items()}
    results = {c: "draw" if winner is None else "win" if c == winner else "loss" for c in colours}
    for colour, player in colours.items():
        _record(player, results[colour], kind)
    game.winner, game.reason, game.moves, game.ended = winner, reason, moves, ended
    game.kind, game.unrated_reason = kind, repeat
    game.black_points_end = colours["black"].points
    game.white_points_end = colours["white"].points
    info["outcome"] = {
        "kind": kind,
        **({"why": repeat} if repeat is not None else {}),
        "results": {c: ("friendly" if kind == "friendly" else r) for c, r in results.items()},
        "points": {c: {"before": before[c], "after": p.points} for c, p in colours.items()},
        "ranks": {c: {"before": rules.rank_of(before[c]).name,
                      "after": rules.rank_of(p.points).name} for c, p in colours.items()},
    }
    notices.game_over(s, game, kind, info["outcome"], ended)
    return True


def _repeat(s: Session, game: LadderGameRow, winner: str | None) -> str | None:
    """The repeat rule (:func:`serving.ladder.farming.repeated`) for ``game``, whose
    ``opening`` is set: why it is not rated, or None."""
    last = last_meetings(s, game.black_id, game.white_id, game.id, farming.REPEAT_WINDOW)
    past = [farming.PastGame(g.id, g.opening, _winner_id(g)) for g in last]
    return farming.repeated(game.opening or [], winner, past)


def _winner_id(g: LadderGameRow) -> str | None:
    return {"black": g.black_id, "white": g.white_id}.get(g.winner or "")


def _record(player: PlayerRow, result: str, kind: str) -> None:
    """One recorded game on a player's row: points and counts (rated), the last result."""
    player.last_result = result
    if kind == "friendly":
        player.friendly_games += 1
        return
    if kind == "unrated":  # a repeated game (serving.ladder.farming): recorded, not counted
        return
    standing = rules.rate(
        rules.Standing(player.points, player.rated_games, player.rated_wins, player.granted > 0),
        result,  # type: ignore[arg-type]
    )
    player.points = standing.points
    player.rated_games, player.rated_wins = standing.rated_games, standing.rated_wins
    player.rated_losses += result == "loss"
    player.rated_draws += result == "draw"

