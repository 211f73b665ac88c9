"""One module per ``qizero`` subcommand of the training stack (the shape ``qizero_cli`` wants:
``add_arguments(parser)`` and ``run(args)``); the work is in :mod:`training.cli`."""
