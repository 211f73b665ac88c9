"""The qizero service: move suggestion and game sessions over REST (FastAPI).

``serving.app.create_app(settings)`` builds the application; ``qizero serve`` runs it with
uvicorn. Everything game-specific comes through the Game protocol (``envs``) and the small
per-game adapters in ``serving.adapters``; AI players come from ``agents.players``.
"""
