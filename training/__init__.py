"""Self-play training: self-play, replay, learner, arena and Elo, strength levels, exports.

Modules, one job each: ``selfplay``, ``replay``, ``learner``, ``config``, ``arena``,
``levels``, ``curve``, ``value_fit``, ``stages``, ``onnx_export``, ``gtp``, ``jiugong_check``,
``cli``. What plays (search, networks, checkpoints, inference, players, the levels file) is
the agent layer, ``agents``. Imports go one way: envs -> agents -> training -> serving.
"""
