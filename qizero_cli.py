"""The ``qizero`` command line: one entry point, subcommands contributed by the packages.

Each subcommand lives in its own module, which defines ``add_arguments(parser)`` and
``run(args) -> int``; this file only maps names to modules (imported when used, so that
``qizero solve`` never imports torch or fastapi).
"""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "solve": ("envs.solve_cli", "solve a game exactly (Jiugong) and query positions"),
    "serve": ("serving.cli", "run the REST service (suggestions, sessions) on 127.0.0.1:8000"),
    "db": ("serving.db_cli", "the service's database: upgrade its schema, show its revision"),
    "train": ("training.commands.train", "train an agent by self-play from a YAML config"),
    "arena": ("training.commands.arena", "round robin between players, with Elo ratings"),
    "levels": ("training.commands.levels", "build and calibrate the strength ladder of a game"),
    "curve": ("training.commands.curve", "Elo of a run's checkpoints against training time"),
    "value-fit": ("training.commands.value_fit",
                  "refit a run's network to predict random playouts' mean result"),
    "check": ("training.commands.check", "check a Jiugong level against the exact solver"),
    "gtp": ("training.commands.gtp", "serve a player over GTP (Go Text Protocol) on stdin/stdout"),
    "export": ("training.commands.export", "export AI levels' networks to ONNX"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qizero",
        description="Board games as rules engines, Gymnasium envs, trained AI levels, a service.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=help_text, description=module.__doc__)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except ValueError as exc:  # QizeroError and friends: bad input, said plainly
        print(f"qizero {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
