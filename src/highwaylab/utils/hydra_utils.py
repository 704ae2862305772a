"""Hydra helpers: resolvers, building objects from ``_target_`` configs, printing the config tree."""

from __future__ import annotations

import contextlib
import copy
import functools
import logging
import secrets
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import rich
import rich.syntax
import rich.tree
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from hydra.utils import instantiate
from omegaconf import DictConfig, ListConfig, OmegaConf, open_dict

log = logging.getLogger(__name__)


def sweep_group() -> str | None:
    """W&B group of this job: ``sweep-<sweep folder name>`` in a multirun, else ``None``."""
    if not HydraConfig.initialized():
        return None
    hc = HydraConfig.get()
    return f"sweep-{Path(hc.sweep.dir).name}" if hc.mode == RunMode.MULTIRUN else None


def run_tags(*, _root_: DictConfig) -> ListConfig:
    """W&B tags of this run: the config's ``tags`` (a list, or one string: ``tags=foo`` is the one
    tag ``foo``), then ``data:<choice>``, ``model:<choice>``, ``depth:<depth>`` (conv models: the
    depth their stages build), ``activation:<model.activation>``, ``optim:<choice>`` (:func:`optim_name`),
    ``seed:<seed>`` and, when one is chosen, ``experiment:<name>``, so that the runs of a sweep can be
    filtered by each swept value."""
    given = _root_.get("tags") or []
    tags = [str(given)] if isinstance(given, str | int | float) else [str(t) for t in given]
    choices = HydraConfig.get().runtime.choices if HydraConfig.initialized() else {}
    if choices.get("data"):
        tags.append(f"data:{choices['data']}")
    tags.append(f"model:{choices.get('model', _root_.model.get('block'))}")
    tags.append(f"depth:{net_depth(_root_=_root_)}")  # conv models: the depth their stages build
    if _root_.model.get("activation"):
        tags.append(f"activation:{activation_key(_root_=_root_)}")
    if choices.get("optim"):
        tags.append(f"optim:{optim_name(_root_=_root_)}")
    tags.append(f"seed:{_root_.get('seed')}")
    if choices.get("experiment"):
        tags.append(f"experiment:{choices['experiment']}")
    return ListConfig(tags)  # a config node: `--cfg job --resolve` cannot hold a bare list


def optim_name(*, _root_: DictConfig) -> str | None:
    """The optimiser's part of run names and tags (``${optim_name:}``): the ``optim`` option chosen
    (``sgd``), or, where ``optim.optimizer._target_`` replaces that option's optimiser
    (``optim=sgd optim.optimizer._target_=torch.optim.RMSprop``), the class that runs, in lower case
    (``rmsprop``), so that the record names the optimiser that trained."""
    chosen = HydraConfig.get().runtime.choices.get("optim") if HydraConfig.initialized() else None
    target = OmegaConf.select(_root_, "optim.optimizer._target_", default=None)
    if chosen is None or not isinstance(target, str) or not target.strip():
        return chosen
    own = _preset_value("optim", str(chosen), ("optimizer", "_target_"))
    if own is None or own.rsplit(".", 1)[-1] == target.rsplit(".", 1)[-1]:
        return chosen
    return target.rsplit(".", 1)[-1].lower()


def activation_key(*, _root_: DictConfig) -> str:
    """The activation's part of run names and tags (``${activation_key:}``): ``model.activation``
    in one spelling (:func:`highwaylab.models.spec.activation_key`: ``Relu`` and ``ReLU`` are
    ``relu``), ``relu`` for a model without one."""
    from highwaylab.models.spec import activation_key as key

    return key(OmegaConf.select(_root_, "model.activation", default=None) or "relu")


def preset_option(group: str, option: str) -> dict:
    """The content of ``conf/<group>/<option>.yaml`` as written (the first of Hydra's file config
    sources that has it), or ``{}`` when there is none."""
    folders = [s.path.removeprefix("file://") for s in HydraConfig.get().runtime.config_sources
               if s.schema == "file"]
    path = next((p for f in folders if (p := Path(f, group, f"{option}.yaml")).is_file()), None)
    return copy.deepcopy(_read_yaml(str(path))) if path is not None else {}


@functools.lru_cache(maxsize=32)
def _read_yaml(path: str) -> dict:
    """The mapping in the YAML file ``path`` (``{}`` if it holds none), read once per process:
    ``${optim_name:}`` is resolved for the run name and for each tag."""
    import yaml

    content = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    return content if isinstance(content, dict) else {}


def _preset_value(group: str, option: str, keys: tuple[str, ...]) -> str | None:
    """The value at ``keys`` in ``conf/<group>/<option>.yaml`` (:func:`preset_option`), or ``None``
    when the file or the key is not there, or the value is not a string."""
    node: Any = preset_option(group, option)
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, str) else None


def net_depth(*, _root_: DictConfig) -> Any:
    """The depth of the network the config builds, for run names (``d${net_depth:}``): ``depth``
    for fully connected models; for conv models (``model.stages``) the conv layers that the stages
    build (stem + transitions + blocks, :func:`highwaylab.models.spec.conv_depth`), which
    ``depth`` does not set. Bad stages give ``depth`` here: the backbone reports them."""
    model = _root_.get("model") or {}
    if "stages" not in model:
        return _root_.get("depth")
    from highwaylab.errors import ConfigError
    from highwaylab.models.spec import conv_depth

    try:  # stages=null is no config node: to_container's ValueError
        stages = OmegaConf.to_container(model.stages, resolve=True)
        return conv_depth(stages, model.get("downsample", "maxpool"))
    except (ConfigError, ValueError):
        return _root_.get("depth")


def config_subdir(ckpt_path: str | None) -> str:
    """Hydra's ``output_subdir``: ``.hydra``, or for a run resumed from ``ckpt_path`` in a folder that
    holds a run's record already (``.hydra/overrides.yaml``: ``resume=``) ``.hydra/resumed_<date>_<time>``,
    so that the original run's record is kept. A new run started from another run's checkpoint
    (``ckpt_path=`` with a new folder) gets ``.hydra``: before, its only record was a
    ``resumed_*`` one, and ``resume=`` of it was refused as "not a run folder" (breaking pass 31,
    row 21)."""
    if not ckpt_path:
        return ".hydra"
    folder = None
    with contextlib.suppress(Exception):  # no job yet (--cfg hydra): its folder is not known
        runtime = HydraConfig.get().runtime
        folder = None if OmegaConf.is_missing(runtime, "output_dir") else runtime.output_dir
    if folder is not None and not (Path(folder) / ".hydra" / "overrides.yaml").is_file():
        return ".hydra"
    return f".hydra/resumed_{datetime.now():%Y-%m-%d_%H-%M-%S}"


def folder_suffix() -> str:
    """4 random hex digits that make a run's (or a sweep's) folder name unique beyond the second:
    ``${folder_suffix:}`` in ``conf/hydra/default.yaml``. Registered with ``use_cache``, as Hydra's
    ``${now:}``: one value per composed config, kept by every job of a multirun (Hydra copies the
    cache into each job's config) and by Lightning's DDP processes (started with ``hydra.run.dir``)."""
    return secrets.token_hex(2)


def output_dir() -> str:
    """The run's folder, ``paths.output_dir`` (``${output_dir:}``): Hydra's
    ``hydra.runtime.output_dir``, set when a job starts. ``--cfg job --resolve`` prints a config
    without starting a job, where that is missing (``???``): then the folder a run started now would use,
    ``hydra.run.dir`` (``--cfg`` is refused with ``-m``, so there is no sweep folder to name)."""
    hydra = HydraConfig.get()
    return hydra.run.dir if OmegaConf.is_missing(hydra.runtime, "output_dir") else hydra.runtime.output_dir


def register_resolvers() -> None:
    """Register ``${sweep_group:}``, ``${run_tags:}``, ``${net_depth:}``, ``${optim_name:}``,
    ``${activation_key:}``,
    ``${log_name:}``, ``${config_subdir:}``, ``${folder_suffix:}`` and ``${output_dir:}``; call
    before the config is composed (safe to call twice)."""
    if not OmegaConf.has_resolver("sweep_group"):
        OmegaConf.register_new_resolver("sweep_group", sweep_group)
    if not OmegaConf.has_resolver("run_tags"):
        OmegaConf.register_new_resolver("run_tags", run_tags)
    if not OmegaConf.has_resolver("log_name"):
        from highwaylab.utils.ranks import log_name

        OmegaConf.register_new_resolver("log_name", log_name)
    if not OmegaConf.has_resolver("net_depth"):
        OmegaConf.register_new_resolver("net_depth", net_depth)
    if not OmegaConf.has_resolver("optim_name"):
        OmegaConf.register_new_resolver("optim_name", optim_name)
    if not OmegaConf.has_resolver("activation_key"):
        OmegaConf.register_new_resolver("activation_key", activation_key)
    if not OmegaConf.has_resolver("config_subdir"):
        OmegaConf.register_new_resolver("config_subdir", config_subdir, use_cache=True)
    if not OmegaConf.has_resolver("folder_suffix"):
        OmegaConf.register_new_resolver("folder_suffix", folder_suffix, use_cache=True)
    if not OmegaConf.has_resolver("output_dir"):
        OmegaConf.register_new_resolver("output_dir", output_dir)


def compose_config(config_dir: str | Path, overrides: list[str], output_dir: str | Path,
                   config_name: str = "train") -> DictConfig:
    """Compose a config as ``python train.py <overrides>`` would, for tests and benchmarks.

    The Hydra config is set (so ``${hydra:...}`` resolves), then dropped from the result, and
    ``paths.output_dir`` is ``output_dir``.
    """
    register_resolvers()
    GlobalHydra.instance().clear()
    with initialize_config_dir(version_base="1.3", config_dir=str(Path(config_dir).resolve())):
        cfg = compose(config_name=config_name, overrides=overrides, return_hydra_config=True)
    HydraConfig().set_config(cfg)
    with open_dict(cfg):
        cfg.paths.output_dir = str(output_dir)
        del cfg.hydra
    return cfg


def instantiate_group(cfg: DictConfig | None, build: Any = None) -> list[Any]:
    """Instantiate each ``_target_`` node of a group such as ``callbacks`` or ``logger``;
    ``build(name, node)``, when given, builds each instead of ``instantiate(node)`` (train.py's names
    the key of a node its class refuses)."""
    objects = []
    for name, node in (cfg or {}).items():
        if isinstance(node, DictConfig) and "_target_" in node:
            log.info(f"Instantiating {name} <{node._target_}>")
            objects.append(build(name, node) if build is not None else instantiate(node))
    return objects


def print_config_tree(cfg: DictConfig, save_to: Path | None = None, show: bool = True) -> None:
    """Print the resolved config (unless ``show`` is false): a rich tree on a terminal, plain YAML
    otherwise (``> run.log``: no 80-column wrapping inside paths, no padding), and save it as YAML
    to ``save_to``."""
    if show and not sys.stdout.isatty():
        print(f"CONFIG\n{OmegaConf.to_yaml(cfg, resolve=True)}", end="", flush=True)
    elif show:
        tree = rich.tree.Tree("CONFIG", style="bold")
        for key, value in cfg.items():
            branch = tree.add(str(key), style="bold cyan")
            text = (OmegaConf.to_yaml(value, resolve=True) if isinstance(value, DictConfig)
                    else str(value))
            branch.add(rich.syntax.Syntax(text, "yaml", word_wrap=True))  # long paths wrap, not crop
        rich.print(tree)
    if save_to is not None:
        save_to.write_text(OmegaConf.to_yaml(cfg, resolve=True))



def quiet_args_parser() -> Any:
    """Hydra's command-line parser, raising ValueError instead of printing its usage and exiting:
    for reading a command line before Hydra does (Hydra's own parser then reports a bad one). It
    prints nothing: ``--version`` raises SystemExit silently, and Hydra's own parser prints it once."""
    from hydra._internal.utils import get_args_parser

    def refuse(message: str) -> None:
        raise ValueError(message)

    parser = get_args_parser()
    parser.error = refuse
    parser._print_message = lambda message, file=None: None  # argparse's --version prints through it
    return parser


def closest_names(name: str, candidates: list[str]) -> list[str]:
    """The ``candidates`` that ``name`` is a typo of: the closest, with those equally close, sorted;
    empty when none is close (``difflib``'s ratio under 0.75: other names, not typos)."""
    import difflib

    match = difflib.get_close_matches(name, candidates, n=3, cutoff=0.75)
    best = difflib.SequenceMatcher(None, name, match[0]).ratio() if match else None
    return sorted(m for m in match if difflib.SequenceMatcher(None, name, m).ratio() == best)


def did_you_mean(name: str, candidates: list[str], prefix: str = "") -> str:
    """``"; did you mean <prefix><closest>?"`` for a typo of one of ``candidates``, else ``""``; the
    candidates equally close are all named (``epochs``: ``max_epochs or min_epochs``; pass 59, row 69:
    before, only the one that sorts last)."""
    if not (tied := closest_names(name, candidates)):
        return ""
    return f"; did you mean {' or '.join(prefix + m for m in tied)}?"


def hydra_help_argv(argv: list[str]) -> list[str]:
    """``argv`` less the overrides of the run's own config when it asks for ``--hydra-help``: Hydra
    composes its help from its own config alone, so that any other override (``model=plain``) ended in
    a 25-line traceback, "Could not override 'model'. No match in the defaults list", with the advice
    ``+model=plain`` (pass 75, row 90). Hydra's own (``hydra/launcher=...``, ``hydra.help...``) stay.
    Any other command line is returned unchanged."""
    try:
        args = quiet_args_parser().parse_args(argv[1:])
    except (ValueError, TypeError, SystemExit):
        return list(argv)
    if not args.hydra_help or not args.overrides:
        return list(argv)
    own = [o for o in args.overrides if not o.lstrip("+~").startswith(("hydra/", "hydra."))]
    return [token for token in argv if token not in own]


def flags_first(argv: list[str]) -> list[str]:
    """``argv`` with Hydra's flags before the overrides. Hydra's parser takes the overrides in one
    run, so ``train.py depth=3 -m model=plain,highway`` fails with "unrecognized arguments:
    model=plain,highway"; this returns ``train.py -m depth=3 model=plain,highway``. A command line
    that parses as it is, or that does not parse either way, is returned unchanged (Hydra reports it).
    """
    parser = quiet_args_parser()
    try:
        if not parser.parse_known_args(argv[1:])[1]:  # nothing left over: Hydra reads it as it is
            return list(argv)
        args, extra = parser.parse_known_intermixed_args(argv[1:])
    except (ValueError, TypeError, SystemExit):
        return list(argv)
    if extra:
        return list(argv)
    overrides, rest = list(args.overrides), []
    pending = list(overrides)
    for token in argv[1:]:
        if pending and token == pending[0]:
            pending.pop(0)
        else:
            rest.append(token)
    return [argv[0], *rest, *overrides]
