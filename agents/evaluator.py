"""Evaluators: what the search asks at a leaf — a prior over actions and a value.

The protocol is batched: ``evaluate(game, states) -> (priors, values)`` for many states at once,
so one network call serves the leaves of many games searched together. ``priors`` is
``(B, num_actions)`` (zero on illegal actions, rows summing to 1) and ``values`` is ``(B,)`` in
[-1, 1] from the view of the player to move in each state (two-player zero-sum: the search
gives the other player the negation).

Why states and not observations: pure MCTS plays random games from the state itself. The
network evaluator turns states into observations and masks and then calls
:meth:`NetworkEvaluator.infer` ``(observations, masks)``, the piece that
:mod:`agents.inference` wraps (cache, batcher) for many searches and callers at once.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from envs.core import ConfigError, Game, PointOutcome

log = logging.getLogger(__name__)

# torch.jit.trace is not thread-safe: two traces at once (the service warms its levels up in
# one thread while requests trace in others) mangle each other's graphs and fail the check.
# The ONNX export (training.onnx_export) traces through torch.export and holds it too.
TRACE_LOCK = threading.Lock()


class Evaluator(Protocol):
    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Priors ``(B, A)`` and mover-view values ``(B,)`` for a batch of non-terminal states."""
        ...


def _masks(game: Game, states: Sequence[Any]) -> np.ndarray:
    if not states:
        return np.zeros((0, game.spec.num_actions), dtype=bool)
    return np.stack([game.legal_mask(s) for s in states])


def uniform_priors(masks: np.ndarray) -> np.ndarray:
    m = masks.astype(np.float32)
    total = m.sum(axis=1, keepdims=True)
    return m / np.maximum(total, 1.0)


class UniformEvaluator:
    """Uniform prior over legal actions, value 0: the search alone does the work."""

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        return uniform_priors(_masks(game, states)), np.zeros(len(states), dtype=np.float32)


class RolloutEvaluator:
    """Uniform prior; value = mean result of ``rollouts`` uniformly random playouts.

    Pure MCTS (the classic baseline) is the search with this evaluator. ``max_plies`` caps a
    playout (a capped playout counts as a draw) so games with long random play stay cheap.
    """

    def __init__(self, rng: np.random.Generator, rollouts: int = 1, max_plies: int = 1000):
        if rollouts < 1:
            raise ValueError("rollouts must be >= 1")
        self.rng = rng
        self.rollouts = rollouts
        self.max_plies = max_plies

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        masks = _masks(game, states)
        values = np.zeros(len(states), dtype=np.float32)
        for i, state in enumerate(states):
            mover = game.to_play(state)
            total = 0.0
            for _ in range(self.rollouts):
                total += float(game.random_playout(state, self.rng, self.max_plies)[mover])
            values[i] = total / self.rollouts
        return uniform_priors(masks), values


class RolloutMixEvaluator:
    """Another evaluator's priors; its value mixed with one random playout's result:
    ``(1 - mix) * value + mix * playout`` (AlphaGo's leaf evaluation, ``SearchConfig.rollout_mix``).
    """

    def __init__(
        self, inner: Evaluator, mix: float, rng: np.random.Generator, max_plies: int = 1000
    ) -> None:
        if not 0.0 <= mix <= 1.0:
            raise ValueError("mix must be in [0, 1]")
        self.inner = inner
        self.mix = mix
        self.playouts = RolloutEvaluator(rng, rollouts=1, max_plies=max_plies)

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        priors, values = self.inner.evaluate(game, states)
        _, played = self.playouts.evaluate(game, states)
        return priors, ((1.0 - self.mix) * values + self.mix * played).astype(np.float32)


#: Precisions a network evaluator may run in (``selfplay.inference_dtype``).
INFERENCE_DTYPES = ("float32", "bfloat16")

#: The smallest batch that a ``bfloat16`` evaluator runs in bfloat16; smaller ones stay in
#: float32. Why: on a CPU with avx512_bf16, the 9x9 network (32 channels, 4 blocks, traced,
#: one thread) runs a batch of 1 at 0.56x float32's speed, 2 at 0.94x, 4 at 1.05x, 8 at 1.18x,
#: 16 at 1.41x, 32 at 1.53x (docs/training.md, "Self-play in bfloat16").
BFLOAT16_MIN_BATCH = 4

#: How far a bfloat16 trace may stray from the eager bfloat16 network on the trace check, as
#: a share of each output's largest magnitude (at least 1): batch norm folded into the
#: convolutions rounds otherwise in bfloat16 (measured: logits of magnitude ~8-10 differ by
#: 0.10-0.14, values by 0.01-0.02, on the 9x9 and cylinder networks).
BFLOAT16_TRACE_TOLERANCE = 0.05


def check_inference_dtype(dtype: str, device: str, field: str = "selfplay.inference_dtype") -> None:
    """ConfigError unless ``device`` runs networks fast in ``dtype``: bfloat16 needs a CPU with
    native bfloat16 instructions (avx512_bf16 or AMX; elsewhere oneDNN emulates it, slower
    than float32) or a CUDA GPU that supports it."""
    import torch

    if dtype not in INFERENCE_DTYPES:
        raise ConfigError(f"{field} is {dtype!r}: one of {', '.join(INFERENCE_DTYPES)}")
    if dtype == "float32":
        return
    if str(device).startswith("cuda"):
        if not (torch.cuda.is_available() and torch.cuda.is_bf16_supported()):
            raise ConfigError(f"{field} is bfloat16 but the GPU does not support bfloat16 "
                              f"(set {field}=float32)")
        return
    cpu = torch.cpu
    native = any(getattr(cpu, name, lambda: False)()
                 for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported"))
    if not native:
        raise ConfigError(f"{field} is bfloat16 but this CPU has no bfloat16 instructions "
                          "(avx512_bf16 or AMX), where it runs slower than float32 "
                          f"(set {field}=float32)")


def bfloat16_autocast(model: Any, device_type: str) -> Any:
    """``model`` run under ``torch.autocast`` in bfloat16 (convolutions and matrix products in
    bfloat16, the rest in float32), its outputs back in float32: a module, to trace. Autocast
    rather than bfloat16 weights: as fast at the batches self-play makes (faster at 64)."""
    import torch

    class Bfloat16Autocast(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x: Any) -> Any:
            with torch.autocast(device_type, dtype=torch.bfloat16):
                out = self.model(x)
            return tuple(o.float() for o in out)

    return Bfloat16Autocast().eval()


class NetworkEvaluator:
    """A policy/value network (``agents.networks``) as a batched evaluator: the network
    alone. Whatever shares it (a cache, a batcher of concurrent callers) wraps :meth:`infer`
    in an :class:`agents.inference.InferencePipeline`.

    Inference runs under ``torch.inference_mode`` on CPU by default; illegal actions get zero
    prior whatever the network says. ``traced=True`` (fixed weights only: levels, arenas, the
    service, a self-play task) runs a frozen TorchScript copy of the network
    (:func:`trace_for_inference`), traced on the first call: a search evaluates a handful of
    positions a call, where eager PyTorch spends most of its time in Python, module by module,
    holding the GIL, so concurrent searches in one process could not use a second core.

    ``compiled`` (fixed weights, float32, on the CPU): a network that has its own compiled
    forward pass (``cpu_inference()``: TriGolden's token transformer, :mod:`agents.tokens_cpu`,
    about 3x the frozen graph's speed at a search's batches of 1-4 positions) runs that in
    place of the trace; ``compiled=False`` keeps the trace (a parity check's reference).

    ``dtype="bfloat16"`` (self-play's ``selfplay.inference_dtype``) runs batches of
    :data:`BFLOAT16_MIN_BATCH` positions or more under bfloat16 autocast (traced apart when
    ``traced``), smaller ones in float32; the answers are float32 either way. ConfigError where
    the device has no fast bfloat16 (:func:`check_inference_dtype`).
    """

    def __init__(
        self, model: Any, device: str = "cpu", traced: bool = False, dtype: str = "float32",
        compiled: bool = True,
    ) -> None:
        import torch

        check_inference_dtype(dtype, device)
        self.torch = torch
        self.model = model.to(device).eval()
        self.device = device
        self.traced = traced
        self.dtype = dtype
        self._module: Callable[..., Any] | None = None if traced else self.model
        bf16 = dtype == "bfloat16"
        self._bf16 = bfloat16_autocast(self.model, torch.device(device).type) if bf16 else None
        self._bf16_module: Callable[..., Any] | None = None if traced else self._bf16
        self._trace_lock = threading.Lock()
        self.compiled = compiled
        cpu = getattr(self.model, "cpu_inference", None) if compiled else None
        self._compiled = (cpu() if cpu is not None and traced and not bf16
                          and torch.device(device).type == "cpu" else None)

    def __getstate__(self) -> dict[str, Any]:
        # Sent to another process (a parallel arena): the network and the settings; the trace
        # starts afresh there.
        return {"model": self.model, "device": self.device, "traced": self.traced,
                "dtype": self.dtype, "compiled": self.compiled}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def _network(self, example: Any) -> Callable[..., Any]:
        if self._bf16 is not None and len(example) >= BFLOAT16_MIN_BATCH:
            if self._bf16_module is None:
                with self._trace_lock:
                    if self._bf16_module is None:
                        self._bf16_module = trace_for_inference(
                            self._bf16, example, BFLOAT16_TRACE_TOLERANCE, relative=True)
            return self._bf16_module
        if self._module is None:
            with self._trace_lock:
                if self._module is None:
                    self._module = trace_for_inference(self.model, example)
        return self._module

    def infer(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Priors and values for a batch of observations (mover's view) and legal masks: one
        network call."""
        torch = self.torch
        if len(observations) == 0:
            return np.zeros(masks.shape, dtype=np.float32), np.zeros(0, dtype=np.float32)
        if self._compiled is not None:
            return self._compiled.infer(observations, masks)
        trim = getattr(self.model, "trim", None)
        kept = trim(observations) if trim is not None else None
        if kept is not None:  # a network whose inputs carry padding runs without it
            rows, parts = kept
            full_masks = masks
            observations = observations[:, :rows]
            masks = np.concatenate([masks[:, part] for part in parts], axis=1)
        with torch.inference_mode():
            obs = torch.from_numpy(np.ascontiguousarray(observations, dtype=np.float32))
            obs = obs.to(self.device)
            mask = torch.from_numpy(np.ascontiguousarray(masks, dtype=bool))
            logits, value = self._network(obs)(obs)
            priors = masked_softmax(logits.cpu(), mask).numpy().astype(np.float32)
        if kept is not None:
            full = np.zeros(full_masks.shape, dtype=np.float32)
            start = 0
            for part in parts:
                width = part.stop - part.start
                full[:, part] = priors[:, start : start + width]
                start += width
            priors = full
        return priors, value.cpu().numpy().reshape(-1)

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        return self.infer(*observations_and_masks(game, states))


def observations_and_masks(game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """What a network reads of ``states``: their observations (float32) and legal masks."""
    shape = (len(states), *game.spec.observation_shape)
    obs = (
        np.stack([game.observation(s) for s in states]).astype(np.float32, copy=False)
        if states
        else np.zeros(shape, dtype=np.float32)
    )
    return obs, _masks(game, states)


def masked_softmax(logits: Any, mask: Any) -> Any:
    """Priors from policy logits: the softmax over the legal actions (``mask`` True), zero on
    the others and on a row with no legal action. Torch tensors; the ONNX export
    (:mod:`training.onnx_export`) puts the same function inside the exported graph."""
    import torch

    priors = torch.softmax(logits.masked_fill(~mask, float("-inf")), dim=1)
    return torch.nan_to_num(priors, nan=0.0)  # rows with no legal action


def trace_for_inference(
    model: Any, example: Any, tolerance: float = 1e-4, relative: bool = False
) -> Callable[..., Any]:
    """A frozen TorchScript copy of ``model`` (in eval mode) for inference, or ``model`` itself.

    Why: a frozen graph runs in C++, without Python's cost for every module call, and releases
    the GIL while it runs (Fang Qi's residual net, one position a call: 0.73 ms eager, 0.45 ms
    frozen; 0.23 ms a call from two threads, where eager gets slower). The trace is checked
    against the eager model on a batch of another size with other inputs; a network whose trace
    does not carry over (control flow that depends on the data) keeps running eagerly.
    ``relative``: the tolerance is a share of each output's largest magnitude, or of 1 where
    that is smaller (bfloat16 rounds to about 3 significant digits).
    """
    import torch

    with torch.inference_mode():
        check = torch.cat([example, example[:1] * 0.5], dim=0)
        try:
            with TRACE_LOCK, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                frozen = torch.jit.freeze(torch.jit.trace(model, example).eval())
            got, want = frozen(check), model(check)
        except (RuntimeError, TypeError, ValueError, torch.jit.TracingCheckError) as exc:
            # TracingCheckError: the sanity check's second trace gave another graph.
            log.warning("network kept eager: tracing failed (%s)", str(exc).partition("\n")[0])
            return model
        # On a GPU, convolutions run in TF32 (cuDNN's default) and the frozen graph may pick
        # other kernels than eager mode: they agree to about 1e-3, not 1e-4 (measured on an
        # H200, where every worker of a burst fell back to eager mode at 1e-4).
        limit = tolerance if example.device.type == "cpu" else max(tolerance, 1e-2)
        if any(
            g.shape != w.shape
            or float((g - w).abs().max()) > limit * (max(1.0, float(w.abs().max()))
                                                    if relative else 1.0)
            for g, w in zip(got, want, strict=True)
        ):
            log.warning("network kept eager: its trace does not match on another batch")
            return model
    return frozen


def network_outcome(model: Any, game: Game, state: Any) -> PointOutcome | None:
    """What a network's ownership and score heads (``forward_aux``, KataGo's auxiliary heads)
    say of ``state``, from the side to move's view, as the game names its points; None when
    the network has no such heads or the game no points to own. One eager forward pass:
    asked once per analysis, beside the search's batched evaluations."""
    import torch

    if getattr(model, "aux", None) is None or not hasattr(model, "forward_aux"):
        return None
    obs = torch.from_numpy(np.ascontiguousarray(game.observation(state), dtype=np.float32))
    device = next(model.parameters()).device
    with torch.inference_mode():
        _, _, ownership, score = model.forward_aux(obs.unsqueeze(0).to(device))
    return game.read_outcome(ownership[0].cpu().numpy(), float(score[0]))


#: Random playouts behind a playout ownership map (:func:`playout_outcome`).
OUTCOME_PLAYOUTS = 16


def playout_outcome(
    game: Game, state: Any, rng: np.random.Generator, playouts: int = OUTCOME_PLAYOUTS,
    max_plies: int = 1000,
) -> PointOutcome | None:
    """Ownership and margin as pure Monte Carlo programs (Fuego, Pachi) estimate them without
    a network: the mean of :meth:`Game.outcome_targets` over ``playouts`` uniformly random
    games from ``state``, from the side to move's view; for the levels that search over
    random playouts. None where the game has no such targets (or no playout ended)."""
    if game.outcome_targets(state) is None:  # the game has none (the default): no playouts
        return None
    mover = game.to_play(state)
    grids, scores = [], []
    for _ in range(playouts):
        s = state
        for _ in range(max_plies):
            if game.is_terminal(s):
                break
            legal = np.flatnonzero(game.legal_mask(s))
            s = game.apply(s, int(legal[rng.integers(len(legal))]))
        targets = game.outcome_targets(s) if game.is_terminal(s) else None
        if targets is None:
            continue
        grids.append(targets.ownership)
        scores.append(targets.score)
    if not grids:
        return None
    sign = 1.0 if mover == 0 else -1.0  # the targets are the first player's
    return game.read_outcome(sign * np.mean(grids, axis=0), sign * float(np.mean(scores)))
