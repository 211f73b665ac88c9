"""AI players for the service: building them from levels, running searches off the event loop,
sharing (and batching) each network among concurrent searches.

Why threads: one process keeps one copy of each network, its inference pipeline
(:class:`agents.inference.ModelPipeline`: cache, batcher, network), so concurrent searches of
the same model share forward passes; the traced networks release the GIL
while they compute. Searches never run on the event loop: suggestions await the worker pool, AI
seats are driven from it. With ``processes > 0`` the searches themselves run in worker
processes (:mod:`serving.search_processes`), each an AIEngine like this one, so the Python of
the search uses every core; the threads here then only wait for them.

Stopping (:meth:`AIEngine.stop`) is prompt: no new search starts, every request awaiting one
answers 503 at once, the worker processes are stopped (their searches are abandoned, not
finished); a search running in this process's own threads is left to end with the process.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agents.inference import ModelPipeline
from agents.inference_remote import ServerPlace
from agents.inference_server import InferenceServers
from agents.variety import OpeningVariety
from envs.core import Game, QizeroError, options_key
from serving.errors import BadInput, Unavailable
from serving.levels import Level, LevelRegistry, LevelTable
from serving.search_processes import SearchProcesses


@dataclass(frozen=True)
class AnalysisBudget:
    """What an analysis may spend and how it reports (checked against the settings by the
    route): ``visits`` simulations, ``seconds`` of wall time, a partial report every
    ``interval`` seconds, ``top`` root moves listed."""

    visits: int
    seconds: float
    interval: float
    top: int


#: Receives each report of an analysis, as JSON (``AnalysisPublic`` without its id).
ReportFn = Callable[[dict[str, Any]], None]


@dataclass
class Suggestion:
    move: str
    action: int
    value: float | None
    top: list[tuple[str, float]]
    level: str
    seconds: float


class AIEngine:
    """Levels, players and the worker pool."""

    def __init__(
        self,
        levels: LevelRegistry,
        workers: int = 16,
        batching: bool = True,
        max_batch: int = 256,
        torch_threads: int = 1,
        cache_bytes: int = 64 << 20,
        processes: int = 0,
        warm_up: bool = False,
        inference: str = "local",
        inference_device: str = "auto",
        inference_wait: float = 0.0,
        remote: ServerPlace | None = None,
    ) -> None:
        self.levels = levels
        # A search process's engine: where its networks' shared inference servers listen
        # (set before the warm-up thread starts: it loads the networks).
        self.remote = remote
        self.batching = batching
        self.max_batch = max_batch
        self.cache_bytes = cache_bytes
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="qizero-ai")
        self._models: dict[Path, ModelPipeline] = {}
        self._models_lock = threading.Lock()
        self._torch_threads = torch_threads
        self._seed_lock = threading.Lock()
        self._seed = int(time.time_ns() & 0xFFFFFFFF)
        # Called with (game id, level id, seconds) after each search (the metrics).
        self.on_search: Callable[[str, str, float], None] | None = None
        self.stopping = False
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Future]] = set()
        self._waiters_lock = threading.Lock()
        # False while warm_up() loads every level's network in the background.
        self.warm = not warm_up
        if warm_up:
            threading.Thread(target=self.warm_up, name="qizero-warm-up", daemon=True).start()
        # The service's engine with inference "shared": one server per network for all the
        # search processes (only with processes: in one process the batcher already sees
        # every search).
        self.inference: InferenceServers | None = None
        if processes > 0 and inference == "shared":
            self.inference = InferenceServers(inference_device, max_batch, inference_wait,
                                              torch_threads)
            for path in self._checkpoints():
                self.inference.ensure(path)
        self.processes: SearchProcesses | None = None
        if processes > 0:
            # This process searches nothing but replays every request's moves: its rules'
            # kernels load here too, or the first request of each game waits for them
            # (~0.6 s for TriGolden's, measured).
            threading.Thread(target=self.warm_rules, name="qizero-warm-rules",
                             daemon=True).start()
            make_engine = partial(
                _process_engine,
                levels.root,
                levels.baseline,
                workers=workers,
                batching=batching,
                max_batch=max_batch,
                torch_threads=torch_threads,
                cache_bytes=cache_bytes,
                remote=None if self.inference is None else self.inference.place,
            )
            self.processes = SearchProcesses(processes, make_engine)

    def stop(self) -> None:
        """Start no more searches and answer every waiting request with 503 now (any thread;
        safe to call twice): the first step of a shutdown."""
        self.stopping = True
        self.pool.shutdown(wait=False, cancel_futures=True)
        with self._waiters_lock:
            waiters = list(self._waiters)
        for loop, waiter in waiters:
            try:
                loop.call_soon_threadsafe(_settle, waiter, None,
                                          Unavailable("the service is stopping; try again"))
            except RuntimeError:  # that event loop is closed: nobody waits there any more
                pass
        if self.processes is not None:
            self.processes.close()
        if self.inference is not None:
            self.inference.close()

    def close(self) -> None:
        """Stop without waiting for the searches in flight (a bounded shutdown)."""
        self.stop()

    # ------------------------------------------------------------------ players
    def model(self, path: Path) -> ModelPipeline:
        """The inference pipeline of a level's network (cache, batcher, network), loaded once
        and shared by every search of this process."""
        with self._models_lock:
            m = self._models.get(path)
            if m is None:
                import torch

                torch.set_num_threads(self._torch_threads)
                try:
                    m = ModelPipeline(path, batching=self.batching, max_batch=self.max_batch,
                                      cache_bytes=self.cache_bytes, remote=self.remote)
                except QizeroError as exc:
                    raise Unavailable(f"cannot load the level's network: {exc}") from None
                self._models[path] = m
            return m

    def table(self, game: Game) -> LevelTable:
        """The levels trained for exactly this game's options."""
        return self.levels.table(game.spec.id, options_key(game))

    def player(self, game: Game, level: Level, seed: int) -> Any:
        """A fresh Player for one search (cheap: networks are shared, rngs are not); ``seed``
        seeds a baseline player's own randomness (rollouts), as the search's rng does."""
        from agents.config import SearchConfig
        from agents.players import SearchPlayer, make_player

        if level.player is not None:
            try:
                return make_player(game, level.player, seed=seed)
            except QizeroError as exc:
                raise BadInput(f"level {level.id!r} cannot play {game.spec.id}: {exc}") from None
        assert level.checkpoint is not None  # a level entry holds one of the two
        model = self.model(level.checkpoint)
        if not model.loaded.plays(game):
            raise BadInput(
                f"level {level.id!r} was trained for {model.loaded.game.spec.id} with options "
                f"{model.loaded.data['game']['options']}; this game's board or actions differ",
                level=level.id,
            )
        cfg = SearchConfig.model_validate(level.search)
        return SearchPlayer(f"level-{level.id}", model, cfg)

    def _tables(self) -> list[LevelTable]:
        """Every game's levels tables, default and trained configurations; a table that
        cannot load is left out (it fails, with its message, when asked for)."""
        import envs

        tables = []
        for game_id in envs.game_ids():
            for key in ["", *self.levels.variants(game_id)]:
                try:
                    tables.append(self.levels.table(game_id, key))
                except Unavailable:
                    continue
        return tables

    def _checkpoints(self) -> list[Path]:
        """The weight files of every level of every game and trained configuration."""
        paths: dict[Path, None] = {}
        for table in self._tables():
            paths.update((lv.checkpoint, None) for lv in table.levels
                         if lv.checkpoint is not None)
        return list(paths)

    def warm_rules(self) -> None:
        """Compile (or load) the rules' kernels of every levels table's game, under the
        options it was trained with (``envs.warm``)."""
        import envs
        from envs.warm import warm_kernels

        for table in self._tables():
            try:
                warm_kernels(envs.make_game(table.game, **table.options))
            except envs.QizeroError:  # options this checkout's rules refuse: fails when asked
                continue

    def warm_up(self) -> None:
        """Load (and trace) every level's network and compile its game's kernels
        (``envs.warm``) and the search's (``agents.search.kernels``) before the first search
        needs them, so no client waits seconds for a cold model (with shared inference: until
        its server answers); a level that cannot load is left to fail, with its message, when
        asked for."""
        from agents.search import kernels
        from envs.warm import warm_kernels

        kernels.warm()
        for path in self._checkpoints():
            try:
                model = self.model(path)
                game = model.loaded.game
                warm_kernels(game)
                model.network.evaluate(game, [game.initial_state()])
            except Unavailable:
                continue
        # What is loaded by now (networks, kernels, the modules behind them) lives as long as
        # the process: out of the collector's sight, its full passes, which the searches'
        # short-lived objects keep triggering, no longer walk it (4-5% of a TriGolden move).
        gc.freeze()
        self.warm = True

    def _serve(self, level: Level) -> None:
        """Make sure the shared inference server of ``level``'s network runs (a level added
        since the start gets one on its first search)."""
        if self.inference is not None and level.checkpoint is not None:
            self.inference.ensure(level.checkpoint)

    def _next_seed(self) -> int:
        with self._seed_lock:
            self._seed += 1
            return self._seed

    # ------------------------------------------------------------------ searching
    def analyse(
        self,
        game: Game,
        state: Any,
        level_id: str | None,
        seed: int | None,
        variety: OpeningVariety | None = None,
    ) -> Suggestion:
        """Search ``state`` with a level (blocking; call it from a worker thread).
        ``variety``: play one of the near-equal moves (:mod:`agents.variety`), drawn with
        ``seed``'s rng: the AI seats of rated ladder games."""
        if game.is_terminal(state):
            raise BadInput("the game is over: there is no move to suggest")
        level = self.table(game).get(level_id)
        seed = seed if seed is not None else self._next_seed()
        if self.stopping:
            raise Unavailable("the service is stopping; try again")
        if self.processes is not None:
            self._serve(level)
            suggestion = self.processes.analyse(game, state, level.id, seed, variety)
        else:
            player = self.player(game, level, seed)
            rng = np.random.default_rng(seed)
            t0 = time.perf_counter()
            analysis = player.analyse(game, state, rng, variety)
            seconds = time.perf_counter() - t0
            top = [(str(m), float(p)) for m, p in analysis.top]
            value = None if analysis.value is None else float(analysis.value)
            suggestion = Suggestion(analysis.move, int(analysis.action), value, top, level.id,
                                    seconds)
        if self.on_search is not None:
            self.on_search(game.spec.id, level.id, suggestion.seconds)
        return suggestion

    def values(self, game: Game, states: Sequence[Any], level_id: str | None) -> np.ndarray:
        """The level's value of each (non-terminal) state, from its side to move's view
        (blocking; call it from a worker thread): a whole game's positions in batches of
        ``max_batch`` rows, through the same cache, batcher and network as the searches, so
        a review costs a few forward passes, not one per position."""
        level = self.table(game).get(level_id)
        if self.stopping:
            raise Unavailable("the service is stopping; try again")
        if self.processes is not None:
            self._serve(level)
            return self.processes.values(game, list(states), level.id)
        evaluator = getattr(self.player(game, level, seed=0), "evaluator", None)
        if evaluator is None:
            raise BadInput(
                f"level {level.id!r} ({level.player}) has no value estimate to review with; "
                "choose a trained level", level=level.id)
        chunks = [evaluator.evaluate(game, list(states[i:i + self.max_batch]))[1]
                  for i in range(0, len(states), self.max_batch)]
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)

    def level_simulations(self, game: Game, level: Level) -> int:
        """The simulations of a level's own search: an analysis's default budget. 422 for a
        level that does not search (a random or greedy baseline has nothing to report)."""
        from agents.config import SearchConfig
        from agents.players import SearchPlayer

        if level.player is None:
            return SearchConfig.model_validate(level.search).simulations
        player = self.player(game, level, 0)
        if not isinstance(player, SearchPlayer):
            raise BadInput(f"level {level.id!r} ({level.player}) does not search: it has no "
                           "analysis to give; choose a level that searches", level=level.id)
        return player.cfg.simulations

    def analysis(
        self,
        game: Game,
        state: Any,
        level_id: str | None,
        budget: AnalysisBudget,
        report: ReportFn,
        cancel: threading.Event,
    ) -> dict[str, Any]:
        """Analyse ``state`` with a level's network and search (blocking; call it from a
        worker thread): partial reports go to ``report``, the final one is returned; setting
        ``cancel`` ends the search at its next step (the final report then says what it found
        so far). In a search process when the engine has them, like :meth:`analyse`. Not
        counted in ``on_search``: the metrics time move searches, and an analysis lasts as
        long as its client asks."""
        if game.is_terminal(state):
            raise BadInput("the game is over: there is no position to analyse")
        if self.stopping:
            raise Unavailable("the service is stopping; try again")
        if self.processes is not None:
            self._serve(self.table(game).get(level_id))
            return self.processes.analysis((game, state, level_id, budget), report, cancel)
        from agents.evaluator import network_outcome, playout_outcome
        from agents.players import SearchPlayer
        from agents.search.analysis import analyse, analysis_config

        level = self.table(game).get(level_id)
        self.level_simulations(game, level)  # 422 for a level that does not search
        seed = self._next_seed()
        player = self.player(game, level, seed)
        assert isinstance(player, SearchPlayer)
        rng = np.random.default_rng(seed)
        if level.checkpoint is not None:
            outcome = network_outcome(self.model(level.checkpoint).loaded.model, game, state)
        else:  # a level over random playouts: its ownership comes from playouts too
            outcome = playout_outcome(game, state, rng)

        def public(found: Any) -> dict[str, Any]:
            return {
                "final": found.final, "level": level.id, "visits": found.visits,
                "seconds": found.seconds, "value": found.value,
                "moves": [{"move": m.move, "visits": m.visits, "value": m.value,
                           "prior": m.prior, "pv": m.pv} for m in found.moves],
                "score_lead": None if outcome is None else outcome.margin,
                "ownership": None if outcome is None else outcome.ownership,
            }

        final = analyse(
            game, state, player.evaluator, analysis_config(player.cfg, budget.visits),
            rng, seconds=budget.seconds, interval=budget.interval,
            report=lambda found: report(public(found)), cancel=cancel, top=budget.top,
        )
        return public(final)

    def submit(self, fn: Any, *args: Any) -> Future:
        return self.pool.submit(fn, *args)

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on the worker pool, awaited; 503 at once if the service stops
        meanwhile (the work itself is abandoned, not waited for)."""
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        entry = (loop, waiter)
        with self._waiters_lock:
            if self.stopping:
                raise Unavailable("the service is stopping; try again")
            self._waiters.add(entry)
        try:
            try:
                work = self.pool.submit(fn, *args)
            except RuntimeError:  # the pool is shut down
                raise Unavailable("the service is stopping; try again") from None

            def done(f: Future) -> None:
                if f.cancelled():
                    outcome: tuple[Any, BaseException | None] = (
                        None, Unavailable("the service is stopping; try again"))
                else:
                    outcome = (None, f.exception()) if f.exception() else (f.result(), None)
                try:
                    loop.call_soon_threadsafe(_settle, waiter, *outcome)
                except RuntimeError:  # the event loop is closed
                    pass

            work.add_done_callback(done)
            return await waiter
        finally:
            with self._waiters_lock:
                self._waiters.discard(entry)

    async def analyse_async(
        self, game: Game, state: Any, level_id: str | None, seed: int | None
    ) -> Suggestion:
        return await self.run(self.analyse, game, state, level_id, seed)

    def warm_now(self) -> bool:
        """Whether every level's network is loaded (each search process answering warm),
        asked without waiting long: readiness."""
        if self.processes is None:
            return self.warm
        return all(w is not None and w["warm"] for w in self.processes.stats(timeout=0.5))

    def stats(self, timeout: float = 60.0) -> dict[str, Any]:
        """Batching and, per loaded network, forward passes, rows, cache hits and batch sizes
        (summed over the search processes; a process that does not answer within ``timeout``
        seconds is left out and the engine is not ``warm``)."""
        if self.processes is not None:
            models: dict[str, dict[str, int]] = {}
            workers = self.processes.stats(timeout)
            for worker in workers:
                for path, counts in (worker or {"models": {}})["models"].items():
                    total = models.setdefault(path, dict.fromkeys(counts, 0))
                    for key, n in counts.items():
                        total[key] = total.get(key, 0) + n
            if self.inference is not None:
                # Forward passes, rows and batch sizes are the servers' (the processes count
                # their requests to them); cache hits and misses stay the processes'.
                served = self.inference.stats()
                for path, counts in models.items():
                    server = served.get(str(Path(path).resolve()))
                    if server is not None:
                        counts.update((k, v) for k, v in server.items() if k in counts)
            return {"batching": self.batching, "processes": len(workers),
                    "inference": "local" if self.inference is None else "shared",
                    "warm": all(w is not None and w["warm"] for w in workers), "models": models}
        with self._models_lock:
            loaded = dict(self._models)
        return {
            "batching": self.batching,
            "processes": 0,
            "inference": "local",
            "warm": self.warm,
            "models": {str(p): m.stats() for p, m in loaded.items()},
        }


def _settle(waiter: asyncio.Future, result: Any, error: BaseException | None) -> None:
    """Resolve ``waiter`` (in its event loop) unless it is already resolved or cancelled."""
    if waiter.done():
        return
    if error is not None:
        waiter.set_exception(error)
    else:
        waiter.set_result(result)


def _process_engine(levels_root: Path, baseline: bool, **engine_args: Any) -> AIEngine:
    """The engine of one search process, built there (the factory given to SearchProcesses):
    the server's settings, its own threads and networks, every network loaded at start."""
    return AIEngine(LevelRegistry(levels_root, baseline), warm_up=True, **engine_args)
