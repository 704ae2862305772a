"""The options of highwaylab's callbacks, checked without torch: each callback's ``__init__`` calls
its check here, and :func:`highwaylab.config_checks.validate` calls :func:`check_callbacks_config`
before torch is imported, so that ``callbacks.lesion.num_examples=0`` is answered in about a second,
with the same message, and leaves no run folder.

Each ``check_<name>`` takes the arguments of one callback class (a test ties the signatures
together) and ``key``, the config node the message names (``callbacks.lesion``: the name the
presets in ``conf/callbacks/`` give it).
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.options")

from collections.abc import Callable, Sequence
from typing import Any

from omegaconf import DictConfig, OmegaConf

from highwaylab.errors import ConfigError


def _integer(key: str, value: Any, low: int, meaning: str = "", example: int | None = None) -> None:
    """Raises ConfigError unless ``value`` is an int >= ``low`` (``True`` is not an int here)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{key}={value!r} must be an integer >= {low}{meaning}, "
                          f"e.g. {key}={low if example is None else example}")


def _number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float)


def check_gate_stats(every_n_steps: Any = 200, num_examples: Any = 1000, seed: Any = 0,
                     closed_below: Any = 0.1, open_above: Any = 0.9, per_layer_scalars: Any = False,
                     key: str = "callbacks.gate_stats") -> None:
    """:class:`highwaylab.callbacks.GateStatsMonitor`: a cadence >= 0 (0: epoch ends only), examples
    >= 1, ``0 < closed_below <= open_above < 1`` (fractions of T), a boolean switch."""
    _integer(f"{key}.every_n_steps", every_n_steps, 0, " (0: at epoch ends only)", 200)
    _integer(f"{key}.num_examples", num_examples, 1, "", 1000)
    _integer(f"{key}.seed", seed, 0)
    if not (_number(closed_below) and _number(open_above) and 0 < closed_below <= open_above < 1):
        raise ConfigError(f"{key}.closed_below={closed_below!r} and {key}.open_above={open_above!r} must be "
                          f"fractions of T with 0 < closed_below <= open_above < 1, e.g. 0.1 and 0.9")
    _switch(f"{key}.per_layer_scalars", per_layer_scalars)


MAX_STRIPE_EXAMPLES = 32  # panels of a stripes figure, one per example


def check_carry_stripes(num_examples: Any = 4, class_examples: Any = 1000, seed: Any = 0,
                        key: str = "callbacks.carry_stripes") -> None:
    """:class:`highwaylab.callbacks.CarryStripeMonitor`: 1 <= examples <= ``MAX_STRIPE_EXAMPLES``,
    class examples >= 0."""
    _integer(f"{key}.num_examples", num_examples, 1, " (the fixed examples whose stripes are drawn)", 4)
    if num_examples > MAX_STRIPE_EXAMPLES:  # pass 35a, row 57: before, 500 drew a 1380 x 32080 px figure
        raise ConfigError(
            f"{key}.num_examples={num_examples} is more than {MAX_STRIPE_EXAMPLES}: each example is one "
            f"panel of the stripes/outputs and stripes/gates figures, drawn at every epoch's end, so "
            f"{num_examples} panels make a figure too tall to read and slow to draw. Fix: e.g. {key}=4 "
            f"(Figure 2 of the paper shows a few); for gate statistics over many examples use "
            f"callbacks.gate_stats.num_examples")
    _integer(f"{key}.class_examples", class_examples, 0, " (0: no class map)", 1000)
    _integer(f"{key}.seed", seed, 0)


def check_grad_norms(every_n_steps: Any = 200, vanishing_ratio: Any = 1e-3, exploding_ratio: Any = 1e3,
                     per_layer_scalars: Any = False, key: str = "callbacks.grad_norms") -> None:
    """:class:`highwaylab.callbacks.LayerGradNormMonitor`: a cadence >= 1 and
    ``0 < vanishing_ratio < 1 < exploding_ratio`` (ratios of a layer's norm to the largest)."""
    _integer(f"{key}.every_n_steps", every_n_steps, 1, "", 200)
    ratios = _number(vanishing_ratio) and _number(exploding_ratio)
    if not (ratios and 0 < vanishing_ratio < 1 < exploding_ratio):
        raise ConfigError(f"{key}.vanishing_ratio={vanishing_ratio!r} and {key}.exploding_ratio="
                          f"{exploding_ratio!r} must satisfy 0 < vanishing_ratio < 1 < exploding_ratio, "
                          f"e.g. 1e-3 and 1e3")
    _switch(f"{key}.per_layer_scalars", per_layer_scalars)


def check_lesion(num_examples: Any = 2000, batch_size: Any = 2500, seed: Any = 0,
                 key: str = "callbacks.lesion") -> None:
    """:class:`highwaylab.callbacks.LesionMonitor`: examples >= 1 or ``None`` (the whole training
    set), a batch size >= 1."""
    if num_examples is not None:
        _integer(f"{key}.num_examples", num_examples, 1, " (or null: the whole training set)", 1000)
    _integer(f"{key}.batch_size", batch_size, 1, "", 2500)
    _integer(f"{key}.seed", seed, 0)


def check_nonfinite_guard(check_every_n_steps: Any = 1, key: str = "callbacks.nonfinite_guard") -> None:
    """:class:`highwaylab.callbacks.NonFiniteGuard`: a cadence >= 1."""
    _integer(f"{key}.check_every_n_steps", check_every_n_steps, 1, " (1: every step)", 1)


def check_chance_warning(steps: Any = 300, tolerance: Any = 0.01,
                         key: str = "callbacks.chance_warning") -> None:
    """:class:`highwaylab.callbacks.ChanceWarning`: steps >= 1, a tolerance in (0, 1) (a fraction of
    ln(classes))."""
    _integer(f"{key}.steps", steps, 1, "", 300)
    if not _number(tolerance) or not 0 < tolerance < 1:
        raise ConfigError(f"{key}.tolerance={tolerance!r} must be in (0, 1), e.g. {key}.tolerance=0.01")


# the key prefixes of GateStatsMonitor, CarryStripeMonitor, LayerGradNormMonitor and LesionMonitor, which
# log through highwaylab.callbacks.media (the loggers and figures/), not Lightning's callback metrics
MONITOR_PREFIXES = ("gates/", "grad_norm/", "lesion/")


def epoch_log_keys(keys: Any, key: str = "callbacks.epoch_log") -> list[str]:
    """``callbacks.epoch_log.keys`` as a list: one metric name given alone (``keys=val/acc``, which
    Hydra reads as a string) is a list of one, as ``tags=foo`` is one tag; a name given twice is
    kept once, where it first stands (``[val/acc,train/loss,val/acc]`` -> ``[val/acc, train/loss]``).

    Raises:
        ConfigError: not a string or a list of strings; a ``train/``, ``val/`` or ``test/`` name that
            no run logs (:data:`highwaylab.config_checks.LOGGED_METRICS`), with the closest one; a
            ``test/`` metric (logged once, after fitting); a key of highwaylab's monitors
            (:data:`MONITOR_PREFIXES`: ``gates/closed``, ``grad_norm/global``), which they log straight
            to the loggers, never as an epoch metric that an epoch line could show.
    """
    from highwaylab.config_checks import LOGGED_METRICS
    from highwaylab.utils.hydra_utils import did_you_mean

    if isinstance(keys, str):
        keys = [keys]
    if OmegaConf.is_list(keys):
        keys = OmegaConf.to_container(keys)
    if not isinstance(keys, Sequence) or not all(isinstance(k, str) for k in keys):
        raise ConfigError(f"{key}.keys={keys!r} must be a list of metric names, "
                          f"e.g. '{key}.keys=[train/loss,val/acc]'")
    for name in keys:
        if name.startswith("test/") and name in LOGGED_METRICS:  # before: "not logged by this run"
            raise ConfigError(f"{key}.keys: {name} is logged once, by the test after fitting (its line "
                              f"'Metrics: ...' and metrics.json), never in an epoch line. Fix: leave it out; "
                              f"epoch metrics are train/* and val/*")
        if name.startswith(MONITOR_PREFIXES):  # before: left out of every epoch line, one warning
            shown = ", ".join(m for m in LOGGED_METRICS if not m.startswith("test/"))
            raise ConfigError(f"{key}.keys: {name} is logged by highwaylab's {name.split('/')[0]}/ monitor "
                              f"straight to the loggers (W&B, CSV) and the run's figures/, never as an epoch "
                              f"metric; the epoch lines show the module's train/ and val/ epoch metrics "
                              f"({shown}). Fix: leave {name} out; see gates/, grad_norm/ and lesion/ keys "
                              f"in W&B or figures/")
        stage = [m for m in LOGGED_METRICS if "/" not in name and m.split("/", 1)[1] == name]
        if stage:  # pass 94, row 34: keys=[lr]; before, a warning after the first epoch, in every line
            epochs = [m for m in stage if not m.startswith("test/")]  # test/: never in an epoch line
            listed = ",".join(epochs[0] if k == name else k for k in keys)
            other = f" (or {' or '.join(epochs[1:])})" if len(epochs) > 1 else ""
            logged = ", ".join(stage[:-1]) + " and " + stage[-1] if len(stage) > 1 else stage[0]
            raise ConfigError(f"{key}.keys: {name!r} is a metric's name without its stage, and the run logs "
                              f"it as {logged}. Fix: name it in full: '{key}.keys=[{listed}]'{other}")
        if name.split("/")[0] in ("train", "val", "test") and name not in LOGGED_METRICS \
                and not name.startswith("train/lr-"):  # the lr monitor's log_momentum, log_weight_decay
            # (pass 95, row 25b: before, train/lr-momentum refused, which the run logged)
            meant = did_you_mean(name, list(LOGGED_METRICS)) or "."
            raise ConfigError(f"{key}.keys: {name!r} is not a metric of the run{meant} Choose from "
                              f"{', '.join(LOGGED_METRICS)}")
    return list(dict.fromkeys(keys))  # duplicates dropped, the first place kept


def check_epoch_log(keys: Any = ("train/loss", "val/loss", "val/acc"),
                    key: str = "callbacks.epoch_log") -> None:
    """:class:`highwaylab.callbacks.EpochLogger`: see :func:`epoch_log_keys`."""
    epoch_log_keys(keys, key)


def check_last_checkpoint(dirpath: Any = None, filename: Any = "last", every_n_train_steps: Any = 1000,
                          every_n_minutes: Any = 10.0, key: str = "callbacks.last_checkpoint") -> None:
    """:class:`highwaylab.callbacks.LatestCheckpoint`: positive intervals or ``None`` (off), and a
    plain file name (``resume=`` looks for ``checkpoints/last.ckpt``)."""
    if every_n_train_steps is not None:
        _integer(f"{key}.every_n_train_steps", every_n_train_steps, 1, " (or null: off)", 1000)
    if every_n_minutes is not None and (not _number(every_n_minutes) or every_n_minutes <= 0):
        raise ConfigError(f"{key}.every_n_minutes={every_n_minutes!r} must be a positive number of minutes "
                          f"or null (off), e.g. {key}.every_n_minutes=10")
    if not isinstance(filename, str) or not filename.strip() or any(c in filename for c in "/\\") \
            or ".." in filename:
        raise ConfigError(f"{key}.filename={filename!r} must be a plain file name without '/', '\\' or '..' "
                          f"(resume= looks for checkpoints/last.ckpt), e.g. last")
    if dirpath is not None and not isinstance(dirpath, str):
        raise ConfigError(f"{key}.dirpath={dirpath!r} must be a folder path or null")


def _switch(key: str, value: Any) -> None:
    from highwaylab.trainer_checks import not_a_switch

    if not isinstance(value, bool):
        raise ConfigError(not_a_switch(key, value))


# callback class name -> its check; the callbacks live in highwaylab.callbacks.<module>
CHECKS: dict[str, Callable[..., None]] = {
    "GateStatsMonitor": check_gate_stats, "CarryStripeMonitor": check_carry_stripes,
    "LayerGradNormMonitor": check_grad_norms, "LesionMonitor": check_lesion,
    "NonFiniteGuard": check_nonfinite_guard, "ChanceWarning": check_chance_warning,
    "EpochLogger": check_epoch_log, "LatestCheckpoint": check_last_checkpoint,
}


def check_callbacks_config(callbacks: DictConfig | None) -> None:
    """Check every entry of the ``callbacks`` group whose ``_target_`` is one of highwaylab's
    callbacks (``highwaylab.callbacks.<Class>`` or ``highwaylab.callbacks.<module>.<Class>``) without
    building it: its keys against the callback's arguments, and their values. Entries of other
    targets (Lightning's callbacks, a user's) are left to their constructors; ``null`` entries pass.

    Raises:
        ConfigError: naming ``callbacks.<name>.<key>``: an argument the callback does not take (with
            the closest one) or a bad value.
    """
    import inspect

    from highwaylab.utils.hydra_utils import did_you_mean

    for name, node in (callbacks or {}).items():
        if not OmegaConf.is_dict(node):
            continue
        target = str(node.get("_target_", ""))
        module, _, cls = target.rpartition(".")
        ours = module == "highwaylab.callbacks" or module.startswith("highwaylab.callbacks.")
        if cls not in CHECKS or not ours:
            continue
        check, key = CHECKS[cls], f"callbacks.{name}"
        values = OmegaConf.to_container(node, resolve=True)
        values = {k: v for k, v in values.items() if not str(k).startswith("_")}
        takes = [p for p in inspect.signature(check).parameters if p != "key"]
        for arg in values:
            if arg not in takes:
                meant = did_you_mean(str(arg), takes, prefix=f"{key}.") or "."
                raise ConfigError(f"{key}.{arg} is not an argument of {target}{meant} It takes "
                                  f"{', '.join(takes)}. Fix: correct or remove {key}.{arg}")
        check(**values, key=key)
