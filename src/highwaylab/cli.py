"""What the package's command-line tools (``python -m highwaylab.probe``, ``highwaylab.workspace``,
``highwaylab.utils.wandb_offline``) do on Ctrl-C: one line and exit status 130, as ``train.py`` and
``highwaylab.report`` do, instead of a traceback of whatever was running (an import of torch, a
plot, W&B's reading of a run). Standard library only, so that it can be installed before the tools'
heavy imports."""

from __future__ import annotations

import os
import signal
import sys


def stop_on_sigint(prog: str, outcome: str) -> None:
    """Make SIGINT end this process at once with the line ``<prog>: interrupted (SIGINT): <outcome>``
    on stderr and exit status 130 (128 + SIGINT). ``os._exit``: a KeyboardInterrupt raised inside
    an import or a library's cleanup turns into another exception and a traceback. Left alone when
    SIGINT is ignored (``nohup``, a background job of a non-interactive shell)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        return

    def interrupted(*_: object) -> None:
        print(f"{prog}: interrupted (SIGINT): {outcome}", file=sys.stderr)
        sys.stderr.flush()
        os._exit(130)

    signal.signal(signal.SIGINT, interrupted)


def non_empty(example: str, kind: type = str) -> object:
    """An argparse ``type`` that refuses an empty (or blank) argument, ``''`` from an unset shell
    variable, with ``<arg>: '' is empty: give <example>``: read as is, ``Path('')`` is ``.``, the
    current folder, which a tool would read or write instead (breaking pass 45, row 26: ``--plot ''``
    was quoted as ``--plot .``; ``report ''`` reported the current folder); and a path with a name
    longer than the file system allows (:func:`highwaylab.utils.out_paths.long_name_problem`)."""
    import argparse

    from highwaylab.utils.out_paths import long_name_problem

    def checked(text: str) -> object:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{text!r} is empty: give {example}")
        if (problem := long_name_problem("", text)) is not None:  # a path no file system call takes
            raise argparse.ArgumentTypeError(problem)
        return kind(text)

    checked.__name__ = kind.__name__  # argparse names the type in its own messages
    return checked


TOOLS = ("python -m highwaylab.report <sweep>", "python -m highwaylab.probe",
         "python -m highwaylab.workspace", "python -m highwaylab.utils.wandb_offline <run>")


def not_a_command(module: str, tool: str | None = None) -> None:
    """End a ``python -m <module>`` that is not a command (``highwaylab.train``, which defines
    ``train(cfg)`` for ``train.py``; ``highwaylab``; ``highwaylab.analysis`` and its modules; the
    callbacks) with one line naming the commands, and exit status 2; ``tool``: the command that runs
    what ``module`` computes (``highwaylab.analysis.probe``: ``python -m highwaylab.probe``), which
    takes the arguments given. Before, ``python -m highwaylab.train depth=3`` imported and exited 0
    having trained nothing (pass 47, rows 30-31), and so did ``python -m highwaylab.analysis.probe
    --depth 10`` (pass 70, rows 20-21) and ``python -m highwaylab.analysis.sweep_report <sweep>``
    (pass 73, row 68).

    For ``train.py``, only the arguments it reads are carried over: overrides and options, and a run's
    folder as ``resume=<folder>`` (pass 73, rows 1 and 70: ``lesion <run>`` was carried over whole, and
    train.py refused both words in turn); the others are named as left out."""
    words = sys.argv[1:]
    if tool is not None:
        print(f"highwaylab: python -m {module} is not a command: it holds what {tool} computes. Fix: "
              f"{tool}{' ' + ' '.join(words) if words else ''}", file=sys.stderr)
        sys.exit(2)
    kept, dropped = [], []
    for word in words:
        if "=" in word or word.startswith(("-", "+", "~")):
            kept.append(word)
        elif os.path.isdir(os.path.join(word, ".hydra")):  # a run's folder: what resume= takes
            kept.append(f"resume={word}")
        else:
            dropped.append(word)
    left = f"; {', '.join(dropped)}: no argument of train.py, left out" if dropped else ""
    print(f"highwaylab: python -m {module} is not a command: training runs through the checkout's "
          f"train.py (python train.py {' '.join(kept) or 'model=highway depth=100'}{left}); the analyses "
          f"(gate statistics, carry stripes, gradient norms, lesioning) are callbacks of a training run "
          f"(callbacks=analysis adds them all); the tools are {', '.join(TOOLS)}", file=sys.stderr)
    sys.exit(2)
