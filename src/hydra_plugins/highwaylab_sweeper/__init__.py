"""highwaylab's Hydra plugin: the Optuna sweeper with its failure cases reported in one line
(Hydra loads plugins only from the ``hydra_plugins`` namespace package)."""
