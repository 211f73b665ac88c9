"""Self-play training: batched search, networks, learner, arena and Elo, strength levels.

Modules, one job each: ``search`` (Gumbel/PUCT MCTS over any Game), ``evaluator`` (what the
search asks at leaves), ``networks``, ``replay``, ``selfplay``, ``learner``, ``config``,
``checkpoint``, ``players``, ``arena``, ``levels``, ``jiugong_check``, ``cli``.
Imports go one way: envs -> training -> serving.
"""
