"""Imported by the language server's fork server before it forks a worker: the runner and every
rule, so that no check pays for importing them, also in a worker started after one was stopped.
The server itself starts without them, to answer `initialize` at once."""

import gradlint.runner  # noqa: F401
from gradlint.rules import all_rules

all_rules()
