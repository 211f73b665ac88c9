"""ONNX export of the AI levels: each level's network as one self-describing ``.onnx`` file that
runs wherever ONNX Runtime does (a browser, a phone, another language), without torch or qizero.

The exported model (the same for every network kind: grid ResNet, MLP, Stereo Go's cylinder
ResNet, TriGolden's token transformer)::

    inputs   observation  float32 (batch, *observation_shape)  Game.observation (mover's view)
             action_mask  bool    (batch, num_actions)         Game.legal_mask
    outputs  policy       float32 (batch, num_actions)         softmax over the legal actions,
                                                               0 on the others
             value        float32 (batch,)                     in [-1, 1], for the mover

``batch`` is dynamic. Why the mask is an input: the priors then come out exactly as the search
uses them (:func:`agents.evaluator.masked_softmax`, the same function traced into the graph),
so a client needs no softmax of its own and cannot get the masking wrong.

Self-describing like the checkpoints (KataGo's habit): the model's ``metadata_props`` hold one
key, ``qizero``, whose value is JSON: ``format`` ("qizero-onnx"), ``format_version``, ``game``
(id, options, options key, player names, action count, observation shape and range), ``level``
(id, label, Elo), ``search`` (the level's :class:`~agents.config.SearchConfig`: algorithm,
simulations, temperature...), ``network`` (its NetworkConfig), ``checkpoint`` (file, iteration,
SHA-256), ``inputs`` and ``outputs`` (names, dtypes, shapes), ``opset`` and ``exported_by``.
:func:`read_metadata` reads it back.

Opset 18: every operator these networks need exists there, and older runtimes (ONNX Runtime
Web among them) load it. The export traces with ``torch.export``; like ``torch.jit.trace`` that
is not safe to run in two threads at once, so it holds :data:`agents.evaluator.TRACE_LOCK`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from agents.checkpoint import CheckpointError, code_commit, file_digest, load_model
from agents.evaluator import TRACE_LOCK, masked_softmax
from agents.levels_file import LevelEntry
from agents.players import levels_folder, read_levels
from envs import Game, make_game
from envs.core import ConfigError, options_key, require

FORMAT = "qizero-onnx"
FORMAT_VERSION = 1
OPSET = 18
METADATA_KEY = "qizero"
INPUT_NAMES = ("observation", "action_mask")
OUTPUT_NAMES = ("policy", "value")


def export_level(
    game_id: str,
    level: str,
    out: Path,
    options: dict[str, Any] | None = None,
    *,
    levels_root: Path | None = None,
) -> Path:
    """Export one level's network to ``out`` (an ``.onnx`` file, written atomically).

    ``level`` is the level's id (``"5"``) or label (``"master"``); ``options`` are the game
    options whose ladder it belongs to, as the service takes them (Stereo Go's levels:
    ``{"rules": "area", "max_moves": 400}``); ``levels_root`` the folder holding
    ``<game>/levels.json`` (default: the shipped ``checkpoints/``). Returns ``out``.
    """
    out = _target(Path(out))
    game = make_game(game_id, **(options or {}))
    entry = read_levels(game, levels_root).find(str(level))
    source = _Source(game, levels_folder(game, levels_root), entry)
    return _write(source.graph(), source.metadata(entry), out)


def export_levels(
    game_id: str,
    out_dir: Path,
    options: dict[str, Any] | None = None,
    *,
    levels_root: Path | None = None,
) -> list[Path]:
    """Export every level of a game's ladder into ``out_dir``: ``<stem>-<id>-<label>.onnx``
    each, and ``<stem>.json``, the list of levels with their files, Elo and search settings
    (what a client shows before it loads a model). ``stem`` is the game id, followed by the
    options key for non-default options (``stereo_go-max_moves-400+rules-area``). Levels that
    share a checkpoint share one trace."""
    game = make_game(game_id, **(options or {}))
    ladder = read_levels(game, levels_root)
    folder = levels_folder(game, levels_root)
    key = options_key(game)
    stem = f"{game_id}-{key}" if key else game_id
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"{out_dir} is a file, not a folder")
    _target(out_dir / f"{stem}.json")
    sources: dict[str, _Source] = {}
    paths: list[Path] = []
    entries = []
    for entry in ladder.levels:
        if entry.checkpoint is None:  # a baseline player (mcts:32...): nothing to export
            continue
        if entry.checkpoint not in sources:
            sources[entry.checkpoint] = _Source(game, folder, entry)
        source = sources[entry.checkpoint]
        path = out_dir / f"{stem}-{entry.id}-{entry.label}.onnx"
        paths.append(_write(source.graph(), source.metadata(entry), path))
        entries.append({**_level_facts(entry), "file": path.name, "search": entry.search})
    if not paths:
        raise ConfigError(f"the levels of {game_id} have no networks to export")
    manifest = {
        "format": f"{FORMAT}-levels",
        "format_version": FORMAT_VERSION,
        "game": _game_facts(game),
        # The service's default level (the one rule: LevelsFile.default_id).
        "default": ladder.default_level().id,
        "levels": entries,
    }
    _atomic_write(out_dir / f"{stem}.json", (json.dumps(manifest, indent=2) + "\n").encode())
    return paths


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``qizero`` metadata of an exported model (see the module docstring)."""
    onnx = require("onnx", "onnx")
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"no ONNX model at {path}")
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as exc:  # noqa: BLE001  (protobuf raises several kinds on a bad file)
        raise CheckpointError(f"{path} is not a readable ONNX model: {exc}") from None
    props = {p.key: p.value for p in model.metadata_props}
    if METADATA_KEY not in props:
        raise CheckpointError(f"{path} is not a qizero ONNX export (no {METADATA_KEY!r} metadata)")
    return json.loads(props[METADATA_KEY])


class OnnxNetwork:
    """An exported model under ONNX Runtime, with :class:`agents.evaluator.NetworkEvaluator`'s
    ``infer(observations, masks) -> (priors, values)``: what the latency bench compares and
    what a Python client without torch runs. ``threads``: ONNX Runtime's intra-op threads
    (1, as the service runs torch)."""

    def __init__(self, path: str | Path, threads: int = 1) -> None:
        ort = require("onnxruntime", "onnx")
        self.metadata = read_metadata(path)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    def infer(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if len(observations) == 0:
            return np.zeros(masks.shape, dtype=np.float32), np.zeros(0, dtype=np.float32)
        feed = {
            "observation": np.ascontiguousarray(observations, dtype=np.float32),
            "action_mask": np.ascontiguousarray(masks, dtype=bool),
        }
        priors, values = self.session.run(list(OUTPUT_NAMES), feed)
        return priors, values


# ---------------------------------------------------------------------------- internals
def _game_facts(game: Game) -> dict[str, Any]:
    spec = game.spec
    return {
        "id": spec.id,
        "name": spec.name,
        "options": dataclasses.asdict(game.config),
        "options_key": options_key(game),
        "player_names": list(spec.player_names),
        "num_actions": spec.num_actions,
        "observation_shape": list(spec.observation_shape),
        "observation_range": list(spec.observation_range),
    }


def _level_facts(entry: LevelEntry) -> dict[str, Any]:
    written = entry.to_json()
    return {k: written.get(k) for k in ("id", "label", "elo", "elo_ci")}


class _Source:
    """A level's checkpoint, loaded once and traced once for all the levels that use it."""

    def __init__(self, game: Game, folder: Path, entry: LevelEntry) -> None:
        if entry.checkpoint is None:
            raise ConfigError(
                f"level {entry.id!r} of {game.spec.id} is the player "
                f"{entry.player!r}, not a network: there is nothing to export"
            )
        path = folder / entry.checkpoint
        self.loaded = load_model(path)
        if not self.loaded.plays(game):
            raise CheckpointError(
                f"{path} was trained for {self.loaded.game.spec.id} with options "
                f"{self.loaded.data['game']['options']}: not this game's board or actions"
            )
        self.game = game
        self.file = entry.checkpoint
        self.digest = file_digest(path)
        self._graph: Any = None

    def metadata(self, entry: LevelEntry) -> dict[str, Any]:
        import torch

        spec = self.game.spec
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "game": _game_facts(self.game),
            "level": _level_facts(entry),
            "search": entry.search,
            "network": self.loaded.network.model_dump(mode="json"),
            "checkpoint": {
                "file": self.file,
                "iteration": self.loaded.iteration,
                "sha256": self.digest,
            },
            "inputs": [
                {"name": "observation", "dtype": "float32",
                 "shape": ["batch", *spec.observation_shape]},
                {"name": "action_mask", "dtype": "bool", "shape": ["batch", spec.num_actions]},
            ],
            "outputs": [
                {"name": "policy", "dtype": "float32", "shape": ["batch", spec.num_actions]},
                {"name": "value", "dtype": "float32", "shape": ["batch"]},
            ],
            "opset": OPSET,
            "exported_by": {"torch": torch.__version__, "commit": code_commit()},
        }

    def graph(self) -> Any:
        """The ONNX ModelProto of the network (no metadata yet), traced on first use."""
        if self._graph is None:
            self._graph = _export_graph(self.game, self.loaded.model)
        return self._graph


def _export_graph(game: Game, network: Any) -> Any:
    require("onnx", "onnx")
    require("onnxscript", "onnx")  # torch's exporter translates through it
    import torch

    class PolicyValue(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.network = network

        def forward(
            self, observation: torch.Tensor, action_mask: torch.Tensor
        ) -> tuple[torch.Tensor, torch.Tensor]:
            logits, value = self.network(observation)
            return masked_softmax(logits, action_mask), value

    state = game.initial_state()
    # A batch of 2: torch.export specialises a dimension it sees as 1.
    obs = torch.from_numpy(np.stack([game.observation(state)] * 2))
    mask = torch.from_numpy(np.stack([game.legal_mask(state)] * 2))
    batch = torch.export.Dim("batch", min=1)
    with TRACE_LOCK, _quiet():
        program = torch.onnx.export(
            PolicyValue().eval(),
            (obs, mask),
            input_names=list(INPUT_NAMES),
            output_names=list(OUTPUT_NAMES),
            dynamic_shapes=({0: batch}, {0: batch}),
            opset_version=OPSET,
            dynamo=True,
            verbose=False,
        )
    return program.model_proto


@contextmanager
def _quiet() -> Iterator[None]:
    """The exporter's progress lines and its warnings about packages it does not need
    (torchvision) say nothing to a user of ``qizero export``."""
    logger = logging.getLogger("torch.onnx")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def _write(graph: Any, metadata: dict[str, Any], out: Path) -> Path:
    onnx = require("onnx", "onnx")
    model = onnx.ModelProto()
    model.CopyFrom(graph)
    del model.metadata_props[:]
    model.metadata_props.add(key=METADATA_KEY, value=json.dumps(metadata, sort_keys=True))
    level = metadata["level"]
    model.doc_string = (
        f"qizero {metadata['game']['id']} level {level['id']} ({level['label']}): policy and "
        "value network; see the 'qizero' metadata"
    )
    onnx.checker.check_model(model)
    _atomic_write(out, model.SerializeToString())
    return out


def _target(path: Path) -> Path:
    """``path`` if a file can be written there, checked before the slow export: a path that
    cannot be is the user's bad input, said plainly."""
    if path.is_dir():
        raise ConfigError(f"{path} is a directory; give a file name (e.g. {path / 'level.onnx'})")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ConfigError(f"cannot write {path}: {parent} is not a folder")
    return path


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``.tmp`` then rename, so a crash never leaves half a file."""
    _target(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
