"""Game sessions: seats, tokens, moves, provisional turns, timers, AI seats, matches.

One module per job; imports go downward in this list:

* :mod:`~serving.sessions.context`: ``Ctx``, one session being worked on.
* :mod:`~serving.sessions.tokens`: who may act (owner and seat tokens).
* :mod:`~serving.sessions.results`: how games and sessions end (results by seat, match totals).
* :mod:`~serving.sessions.machine`: the state machine over the Game protocol (replaying
  events, a committed event and what follows it).
* :mod:`~serving.sessions.timeouts`: applying due time-outs, the timer poller (the time
  controls themselves: :mod:`serving.clocks`).
* :mod:`~serving.sessions.changes`: what a commit changed, as the events of the session's
  channel (the event log: :mod:`serving.events`).
* :mod:`~serving.sessions.persistence`: loading (replayed, cached) and committing sessions with
  their events and what they wait for (the SQL: :mod:`serving.db`).
* :mod:`~serving.sessions.drivers`: this replica's driver leases (:mod:`serving.leases`) and
  the poller that takes up sessions nobody drives (due clocks, a dead replica's AI seats).
* :mod:`~serving.sessions.ai_seats`: the AI seat driver.
* :mod:`~serving.sessions.turns`: moves, provisional turns, seat changes (every game).
* :mod:`~serving.sessions.extras`: resignation, arbitration, Go's scoring phase (where the
  game's adapter, :mod:`serving.adapters`, offers them).
* :mod:`~serving.sessions.view`: the JSON a client sees.
* :mod:`~serving.sessions.reviews`: a finished session's review (:mod:`serving.review`),
  computed once and stored with it.
* :mod:`~serving.sessions.manager`: ``SessionManager``, one compare-and-set write per route,
  and the lifecycle.

A session is stored as its events per game of its match and rebuilt by replaying them through
the rules; every change is one compare-and-set on its version, committed before the answer.
"""
