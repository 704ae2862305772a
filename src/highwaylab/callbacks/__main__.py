"""``python -m highwaylab.callbacks``: not a command; one line names ``train.py`` and the tools."""

from highwaylab.cli import not_a_command

not_a_command("highwaylab.callbacks")
