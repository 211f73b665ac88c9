"""How games and sessions end: results keyed by seat, match totals, a loss (resignation, time,
arbitration), a draw by agreement and the agreed score of Go's scoring phase.

Every finished game appends its result to ``extras["game_results"]`` and a finished session
gets ``result`` here, so whatever consumes results (a ranking, statistics) has one source.
Results are keyed by seat, not by the rules' player names: seats swap sides in a match.
"""

from __future__ import annotations

from typing import Any

from serving.sessions.context import Ctx


def by_seat(ctx: Ctx, res: dict[str, Any] | None, reason: str) -> dict[str, Any]:
    """A game's result keyed by seat (player names are per game; seats swap in matches)."""
    out: dict[str, Any] = {"reason": reason}
    if res is None:
        return out
    mapping = {ctx.names[p]: ctx.seat_of(p) for p in range(len(ctx.names))}
    out["returns"] = {mapping[k]: v for k, v in res["returns"].items()}
    out["winner"] = mapping[res["winner"]] if res["winner"] else None
    if "score" in res:
        out["score"] = {mapping[k]: v for k, v in res["score"].items()}
    return out


def final_result(ctx: Ctx) -> dict[str, Any]:
    """The session's result from its games' results (a match: totals and the winner)."""
    games = ctx.data.extras.get("game_results", [])
    if ctx.data.match_games == 1 or (len(games) == 1 and games[0].get("reason") != "rules"):
        return dict(games[-1])
    # A match: totals of the games' scores (or returns for a game without a score).
    totals = {s: 0.0 for s in ctx.names}
    for g in games:
        for seat, v in (g.get("score") or g.get("returns") or {}).items():
            totals[seat] += v
    last = games[-1]
    if last.get("reason") != "rules":  # resignation / arbitration decides the match
        return {"reason": last["reason"], "winner": last.get("winner"), "totals": totals,
                "games": games}
    best = max(totals.values())
    leaders = [s for s, v in totals.items() if v == best]
    winner = leaders[0] if len(leaders) == 1 else None
    return {"reason": "rules", "winner": winner, "totals": totals, "games": games}


def finish(ctx: Ctx, loser: str, reason: str) -> None:
    """End the session with ``loser`` losing (resignation, arbitration, time): decides a match."""
    others = [s for s in ctx.names if s != loser]
    res = {
        "reason": reason,
        "returns": {s: (-1.0 if s == loser else 1.0) for s in ctx.names},
        "winner": others[0] if len(others) == 1 else None,
        "loser": loser,
    }
    ctx.data.extras.setdefault("game_results", []).append(res)
    ctx.data.pending = []
    ctx.data.status = "over"
    ctx.data.turn_started = None
    ctx.data.result = final_result(ctx)


def draw(ctx: Ctx, reason: str) -> None:
    """End the session drawn (a draw by agreement): no winner, every seat's return 0."""
    res = {"reason": reason, "returns": dict.fromkeys(ctx.names, 0.0), "winner": None}
    ctx.data.extras.setdefault("game_results", []).append(res)
    ctx.data.pending = []
    ctx.data.status = "over"
    ctx.data.turn_started = None
    ctx.data.result = final_result(ctx)


def finalize_score(ctx: Ctx) -> None:
    """End the scoring phase with the marked dead chains."""
    dead = ctx.data.extras["scoring"]["dead"]
    final = ctx.adapter.final_score(ctx.game, ctx.state, dead)
    seat_of = [ctx.seat_of(p) for p in range(len(ctx.names))]
    winner = final["winner"]
    res = {
        "reason": "score",
        "score": {seat_of[p]: v for p, v in enumerate(final["points"])},
        "winner": seat_of[winner] if winner is not None else None,
        "returns": {
            seat_of[p]: (0.0 if winner is None else 1.0 if p == winner else -1.0)
            for p in range(len(ctx.names))
        },
        "dead": dead,
        "detail": final["detail"],
    }
    ctx.data.extras.setdefault("game_results", []).append(res)
    ctx.data.status = "over"
    ctx.data.result = final_result(ctx)
