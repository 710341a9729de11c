"""Fixes: what a rule may ask for (`plan`), how that becomes text edits (`edits`), the builders
several rules share (`builders`), and the loop that applies them to a file (`apply`, `cleanup`)."""
