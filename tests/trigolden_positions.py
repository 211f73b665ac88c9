"""Hand-built TriGolden positions (move lists) that several test modules use."""

# Found by an independent check (issue 27): p1 to move; G@42.0/1 has two second pieces, and
# both leave p2 without a legal complete turn, while other first pieces keep one.
CROWDED = (
    "P' P@0.2/0 T@0.0/1 P@1.2/0 P@1.3/1 G@4.3/2 G@4.2/0 P@6.2/1 G@6.1/2 G@3.2/0 G@3.1/2 "
    "G@10.1/1 T@10.0/1 G@12.0/1 T@12.2/1 T@9.1/0 G@9.2/1 T@16.0/2 G@0.3/2 P'@5.1/1 T@17.1/2 "
    "P@19.3/1 G@19.0/0 G@21.0/0 T@21.2/2 G@24.0/2 T@24.1/1 P'@22.1/1 G@22.2/1 G@23.2/1 "
    "T@7.0/2 T@26.2/2 P@26.0/1 T@32.2/2 P'@32.3/1 G@34.3/1 P'@34.0/0 P'@27.3/1 T@27.2/2 "
    "P@37.2/0 G@37.3/2 P'@7.3/1 T@7.2/1"
)

# Found by a seeded search of random n = 4 games: p1 (T1 G1 P3) to move, p2 holding only
# parallelograms, and no turn of p1 leaves p2 a legal complete turn.
FORCED = ("P' T@0.2/2 T@0.3/0 T@2.2/2 T@2.1/2 T@0.0/1 G@0.1/2 G@1.0/2 G@1.1/0 T@8.2/0 G@8.1/2 "
          "G@9.2/0 T@9.1/1 G@11.2/1 G@11.1/2")
# FORCED followed by one of p1's turns, all of which break the obligation.
FORCED_TURN = "G@5.0/1 T@5.2/1"


def forced_arbitration():
    """The n = 4 game after FORCED and p1's turn: p2, left with no legal complete turn,
    wins by arbitration (``claimant`` 1)."""
    from envs import make_game

    game = make_game("trigolden", n=4)
    state = game.initial_state()
    for move in [*FORCED.split(), *FORCED_TURN.split()]:
        state = game.play(state, move)
    return state
