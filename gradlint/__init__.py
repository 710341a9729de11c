"""gradlint: a static analyzer for PyTorch training code."""

__version__ = "0.2.0"

# Base of the rendered rule catalog; the JSON `url` field is this plus `<CODE>.md`.
RULE_DOCS_URL = "https://github.com/gradlint/gradlint/blob/main/rules/"
