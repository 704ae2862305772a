"""Gradient norms through depth at initialisation, as a table and a plot.

    python -m highwaylab.probe                      # the five stacks of the published table
    python -m highwaylab.probe --activation tanh --form plain --scale 3 --depth 50 --width 128

See :mod:`highwaylab.analysis.probe` for the set-up (../shared/science.md).
"""

from __future__ import annotations

if __name__ == "__main__":  # before the imports of torch and matplotlib, which take seconds
    from highwaylab.cli import stop_on_sigint

    stop_on_sigint("python -m highwaylab.probe", "the table and the plot were not finished")

import argparse
import math
import os
import sys
from pathlib import Path

from highwaylab.analysis.plots import layer_lines
from highwaylab.analysis.probe import PUBLISHED, Stack, input_grad_norms, table
from highwaylab.cli import non_empty
from highwaylab.config_checks import MAX_SEED
from highwaylab.models.fc_blocks import ACTIVATIONS
from highwaylab.utils.out_paths import tilde_problem


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m highwaylab.probe", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--activation", help="any torch.nn activation; omit for the published stacks")
    parser.add_argument("--form", choices=["plain", "residual"], default=None,
                        help="with --activation: the stack's form (default plain)")
    parser.add_argument("--scale", type=float, default=None,
                        help="with --activation: weight std is scale / sqrt(width) (default 1)")
    parser.add_argument("--depth", type=int, default=30)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--layers", default=None, help="layers to tabulate, e.g. 30,20,10,1")
    plot = Path("outputs/probe/grad_norms.png")
    parser.add_argument("--plot", type=non_empty(f"a file name, e.g. --plot {plot}", Path), default=plot)
    args = parser.parse_args(argv)
    for name in ("depth", "width", "batch"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be a positive integer, got {getattr(args, name)}")
    if not 0 <= args.seed <= MAX_SEED:  # as train.py's seed (before: torch's overflow traceback, or -1 taken)
        parser.error(f"--seed must be an integer in 0 .. {MAX_SEED} (2**32 - 1), got {args.seed}")
    if args.scale is not None and (not math.isfinite(args.scale) or args.scale <= 0):  # before the check
        # below, which quoted the bad value back in its example (pass 73, row 46: --scale 0.0, refused later);
        # with the need of --activation, where it is missing too (pass 79, row 60: before, a second refusal)
        also = ("; and --scale describes a stack of your own, which needs --activation too (e.g. "
                "--activation tanh --scale 2.0)" if not args.activation else "")
        parser.error(f"--scale must be a positive finite number, got {args.scale}{also}")
    own = [f"--{name} {getattr(args, name)}" for name in ("form", "scale") if getattr(args, name) is not None]
    if own and not args.activation:  # they describe one stack of the user's; else the published five
        verb = "describes" if len(own) == 1 else "describe"
        parser.error(f"{' and '.join(own)} {verb} a stack of your own, which needs --activation too (e.g. "
                     f"--activation tanh {' '.join(own)}); without --activation the five published "
                     f"stacks run")
    args.form = args.form or "plain"
    args.scale = 1.0 if args.scale is None else args.scale
    if not math.isfinite(args.scale) or args.scale <= 0:
        parser.error(f"--scale must be a positive finite number, got {args.scale}")
    named = (args.activation or "").rsplit(".", 1)[-1].lower().replace("_", "")
    if args.activation and "." in args.activation and named in ACTIVATIONS:  # pass 84, row 115: torch.nn.Tanh
        parser.error(f"--activation {args.activation!r}: give the activation by its name, e.g. --activation "
                     f"{named}")
    if args.activation and args.activation.lower().replace("_", "") not in ACTIVATIONS:
        parser.error(f"--activation {args.activation!r} is not an element-wise torch.nn activation; "
                     f"choose one of: {', '.join(sorted(ACTIVATIONS))}")
    d = args.depth  # default columns: 30, 20, 10, 1 for depth 30, as in the published table
    try:
        layers = (list(dict.fromkeys(int(k) for k in args.layers.split(",")))  # 3,3: one column 3
                  if args.layers else sorted({d, max(1, 2 * d // 3), max(1, d // 3), 1}, reverse=True))
    except ValueError:
        parser.error(f"--layers must be comma-separated layer numbers, e.g. 30,20,10,1; got {args.layers}")
    if any(not 1 <= k <= args.depth for k in layers):
        parser.error(f"--layers must lie in 1 .. {args.depth}")
    need = probe_bytes(args.depth, args.width, args.batch)
    available = available_bytes()
    if available is not None and need > available:
        parser.error(f"--depth {args.depth} --width {args.width} --batch {args.batch} needs about "
                     f"{need / 1e9:.3g} GB (float64 weights and activations), and this machine has "
                     f"{available / 1e9:.3g} GB available: lower --width, --depth or --batch")
    args.plot = check_plot_path(parser, args.plot)  # the last check: it creates the plot's folder

    stacks = ([Stack(args.activation, args.form, args.scale)] if args.activation
              else [Stack(*s) for s in PUBLISHED])
    sizes = {"depth": args.depth, "width": args.width, "batch": args.batch, "seed": args.seed}
    say(f"Norm of the gradient w.r.t. the input of each layer ({args.depth} layers, width "
        f"{args.width}, batch {args.batch}, seed {args.seed}; unit-norm gradient at the top)\n")
    try:
        norms = {stack: input_grad_norms(stack, **sizes) for stack in stacks}
    except (MemoryError, RuntimeError) as err:  # the allocator's refusal, below the estimate above
        if not isinstance(err, MemoryError) and "allocate" not in str(err):
            raise
        parser.error(f"--depth {args.depth} --width {args.width} --batch {args.batch}: the memory ran out "
                     f"(about {need / 1e9:.3g} GB needed): lower --width, --depth or --batch")
    say(table(norms, layers))
    broken = [str(stack) for stack, values in norms.items() if not bool(values.isfinite().all())]
    if broken:  # pass 88, row 34: --scale 1e308; before, "every gradient norm above is 0" under a NaN table
        parser.exit(2, f"{parser.prog}: error: the gradient norms of {', '.join(broken)} are not finite (nan "
                       f"or inf): weights x{args.scale:g} overflow float64 in the forward pass, so nothing "
                       f"can be read from them, and {args.plot} was not written. Fix: a smaller --scale, "
                       f"e.g. --scale 2.0\n")
    if not any(bool((values > 0).any()) for values in norms.values()):  # pass 35, row 40: a traceback
        say(f"\nplot: not drawn: every gradient norm above is 0 (the gradient vanished in every layer), "
            f"which a log scale cannot show; {args.plot} was not written")
        return
    fig = layer_lines({str(stack): values.numpy() for stack, values in norms.items()},
                      "Gradient norm w.r.t. each layer's input at initialisation",
                      "L2 norm", log=True)
    try:
        fig.savefig(args.plot, dpi=120)
    except OSError as err:
        parser.error(f"--plot {args.plot}: cannot write the plot there ({err})")
    say(f"\nplot: {args.plot}")


def say(text: str) -> None:
    """``print(text)`` to stdout, where a reader that has gone (``| head -1`` closed the pipe) ends
    the printing only: stdout goes to ``os.devnull``, and the plot is still written (breaking pass
    29, row 81: a BrokenPipeError traceback, and no plot)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def probe_bytes(depth: int, width: int, batch: int) -> int:
    """Bytes one stack of :func:`highwaylab.analysis.probe.input_grad_norms` holds at its peak, about:
    float64 (8 bytes) weights ``depth x (width, width)`` and, per layer, the ``(batch, width)``
    input, pre-activation, output and gradient."""
    return 8 * (depth * width * width + 4 * depth * batch * width)


def available_bytes() -> int | None:
    """The memory available to a new allocation (``MemAvailable`` of ``/proc/meminfo``), or ``None``
    where it cannot be read."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_plot_path(parser: argparse.ArgumentParser, plot: Path) -> Path:
    """The file ``--plot`` will be written to, checked before anything is computed; an argparse error
    (exit status 2, one line) otherwise.

    The file type is the suffix, checked against matplotlib's own list
    (``FigureCanvasBase.get_supported_filetypes``), case-insensitively as ``savefig`` reads it; a
    small figure with text is then drawn in that format into memory, so that a format whose writer
    needs a program this machine lacks (``.pgf``: LaTeX) is refused now, not after the computation.
    Without a suffix, ``savefig`` adds its default type (``.png``): the returned path has it. A
    ``--plot`` that is a folder is refused; the file's folder is created here (one that cannot be is
    refused).
    """
    import io

    from matplotlib.figure import Figure

    tilde = tilde_problem("--plot", plot)
    if tilde is not None:  # pass 35, row 31: before, written into a folder named '~', printed as '~/...'
        parser.error(tilde)
    if plot.is_dir():
        parser.error(f"--plot {plot} is a folder; give a file name, e.g. --plot {plot / 'grad_norms.png'}")
    if plot.exists() and not plot.is_file():  # pass 60, row 17: /dev/null made /dev/null.png, as root
        import stat

        kind = next((name for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK,
                     "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))
                     if test(plot.stat().st_mode)), "not a regular file")
        parser.error(f"--plot {plot} is {kind}, not a file: the figure is written to a file of its own (a "
                     f"name without a suffix gets .png), and the table is printed either way. Fix: give a "
                     f"file name, e.g. --plot /tmp/grad_norms.png")
    canvas = Figure().canvas
    types = canvas.get_supported_filetypes()
    fmt = plot.suffix[1:].lower()
    if not fmt:  # what savefig does: <name>.<default type>
        fmt = canvas.get_default_filetype()
        plot = plot.with_name(plot.name.rstrip(".") + "." + fmt)
    if fmt not in types:
        parser.error(f"--plot {plot}: matplotlib cannot write .{fmt} files; end the name with one of "
                     f"{', '.join('.' + t for t in sorted(types))} (e.g. --plot {plot.with_suffix('.png')})")
    trial = Figure(figsize=(1, 1))
    trial.text(0.5, 0.5, "x")
    try:
        trial.savefig(io.BytesIO(), format=fmt)
    except Exception as err:  # noqa: BLE001 -- the writer's own reason, reported as one line
        reason = (str(err).strip().splitlines() or [""])[0]
        parser.error(f"--plot {plot}: matplotlib cannot write .{fmt} on this machine ({type(err).__name__}: "
                     f"{reason}); choose another type, e.g. --plot {plot.with_suffix('.png')}")
    try:
        plot.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        why = "a file is there" if isinstance(err, FileExistsError) else err.strerror or err
        parser.error(f"--plot {plot}: cannot create the folder {plot.parent} ({why}); "
                     f"give a writable place, e.g. --plot /tmp/grad_norms.png")
    return plot


if __name__ == "__main__":
    main()
