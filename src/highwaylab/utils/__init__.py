"""Helpers of the entry point: Hydra resolvers and printing, the task wrapper."""

from highwaylab.utils.hydra_utils import (
    compose_config,
    instantiate_group,
    print_config_tree,
    register_resolvers,
    sweep_group,
)
from highwaylab.utils.task import close_loggers, full_key, task_wrapper, user_error

__all__ = ["close_loggers", "compose_config", "full_key",
           "instantiate_group", "print_config_tree", "register_resolvers",
           "sweep_group", "task_wrapper", "user_error"]
