"""The agent layer: what turns a position of a game into a move.

The search (:mod:`agents.search`), the networks and their checkpoints, the evaluators, one
inference pipeline (evaluation cache → batcher → network, :mod:`agents.inference`), the
players (:mod:`agents.players`) and the levels file (:mod:`agents.levels_file`). Self-play,
the arena, the levels, GTP, the ONNX export (``training``) and the service (``serving``) all
play through it. It imports only ``envs``: ``envs`` ← ``agents`` ← ``training`` ← ``serving``.
"""
