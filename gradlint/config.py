"""`[tool.gradlint]` settings and rule selection by code prefix (ruff semantics)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Optional

from gradlint.fix.plan import torch_release
from gradlint.rules import all_codes, opt_in_codes

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_EXCLUDE = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".hg",
    ".ipynb_checkpoints",  # Jupyter's autosaved copies of the notebooks beside it
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pytype",
    ".ruff_cache",
    ".gradlint_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)
KNOWN_KEYS = frozenset(
    {
        "select",
        "ignore",
        "extend-select",
        "exclude",
        "extend-exclude",
        "per-file-ignores",
        "unsafe-fixes",
        "cache-dir",
        "respect-gitignore",
        "force-exclude",
        "fail-on",
        "target-torch",
    }
)
# `fail-on`: the least severe finding that makes a run fail (exit 1). "warning", the default, is
# every finding, as ruff's; "error" lets warnings be reported without failing a CI gate.
FAIL_ON = ("error", "warning")
# `target-torch`: the oldest torch release the checked code must still run on. A fix whose
# replacement needs a newer one is offered as unsafe, its title saying why. The default is the
# oldest release that has every replacement of the API tables (`newest_replacement()`): every fix
# is offered as the rule declares it (tests/test_target_torch.py keeps the two equal).
DEFAULT_TARGET_TORCH = "2.13"


DEFAULT_SELECT = ("GL",)
# Left out of the default selection besides the opt-in rules: migrations whose legacy form still
# runs as meant, without a warning, under the current torch (`.data`, `torch.FloatTensor(n)`,
# `torch.norm`), and which current code writes on purpose so often that a CI gate would drown in
# them: on the 38 current repositories of bench/PRECISION.md they were 9 in 10 of the default
# findings (`python bench/default_density.py CORPUS`). `gradlint fix --migrate...` and
# `check --migrate...` select them, and so does a `select` or `extend-select` that names them.
LEGACY_STYLE_CODES = frozenset({"GL301", "GL302", "GL303", "GL507", "GL508"})


def left_out_by_default() -> frozenset[str]:
    """The rules the default selection leaves out: the opt-in ones and the legacy style ones."""
    return opt_in_codes() | LEGACY_STYLE_CODES


class ConfigError(Exception):
    """A usage or configuration error: exit code 2 with this message."""


@dataclass(frozen=True)
class Settings:
    root: Path
    config_path: Optional[Path] = None
    select: tuple[str, ...] = DEFAULT_SELECT
    select_given: bool = False  # `select` was configured or given: the rules it names are on, opt-in or not
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    unsafe_fixes: bool = False
    cache_dir: Optional[str] = None
    respect_gitignore: bool = True
    force_exclude: bool = False  # also exclude files named on the command line (pre-commit passes names)
    fail_on: str = "warning"  # one of FAIL_ON
    target_torch: str = DEFAULT_TARGET_TORCH  # "X.Y" or "X.Y.Z"
    # How these settings were made, to make those of another configuration the same way: the
    # command-line options, and whether one configuration holds for every file (`--config` named
    # the file, or `--isolated` reads none).
    overrides: Optional["Overrides"] = field(default=None, compare=False, hash=False)
    same_for_every_file: bool = False

    def codes(self) -> frozenset[str]:
        codes = select_codes(self.select + self.extend_select, self.ignore)
        if self.select_given or self.select != DEFAULT_SELECT:
            return codes
        # The default selection leaves some rules out, as ruff's leaves out RUF100.
        return codes - (left_out_by_default() - select_codes(self.extend_select, self.ignore))

    def codes_for(self, relative_path: str) -> frozenset[str]:
        codes = self.codes()
        ignored = [c for pattern, cs in self.per_file_ignores if _glob_match(pattern, relative_path) for c in cs]
        if not ignored:
            return codes
        return frozenset(code for code in codes if not any(code.startswith(prefix) for prefix in ignored))

    def fails(self, severity: str) -> bool:
        """Whether a finding of `severity` ("error" or "warning") makes the run fail under `fail-on`."""
        return severity == "error" or self.fail_on == "warning"


@dataclass
class Overrides:
    """Command-line options; None means 'not given'. `table` holds the `--config KEY=VALUE`
    overrides, which apply over every configuration file and under the other options."""

    select: Optional[tuple[str, ...]] = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    unsafe_fixes: Optional[bool] = None
    force_exclude: Optional[bool] = None
    exclude: Optional[tuple[str, ...]] = None
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: Optional[tuple[tuple[str, tuple[str, ...]], ...]] = None
    extend_per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    respect_gitignore: Optional[bool] = None
    cache_dir: Optional[str] = None
    fail_on: Optional[str] = None
    target_torch: Optional[str] = None
    isolated: bool = False  # read no configuration file
    table: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


def validate_codes(codes: Iterable[str], origin: str) -> tuple[str, ...]:
    known = all_codes()
    result = []
    for code in codes:
        code = code.strip().upper()
        if not code:
            continue
        if code != "ALL" and not any(k.startswith(code) for k in known):
            raise ConfigError(f"unknown rule selector `{code}` in {origin}")
        result.append("GL" if code == "ALL" else code)
    return tuple(result)


def select_codes(selected: Iterable[str], ignored: Iterable[str]) -> frozenset[str]:
    """The most specific matching prefix wins; on a tie, ignore wins."""
    selected, ignored = tuple(selected), tuple(ignored)
    result = set()
    for code in all_codes():
        best_select = max((len(p) for p in selected if code.startswith(p)), default=-1)
        best_ignore = max((len(p) for p in ignored if code.startswith(p)), default=-1)
        if best_select >= 0 and best_select > best_ignore:
            result.add(code)
    return frozenset(result)


def find_config(start: Path) -> Optional[Path]:
    """The nearest pyproject.toml (from `start` upward) that has a [tool.gradlint] table."""
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            if _gradlint_table(candidate) is not None:
                return candidate
    return None


def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"invalid TOML in {path}: {error}") from None
    except UnicodeDecodeError as error:  # TOML is UTF-8 text
        raise ConfigError(f"invalid TOML in {path}: not UTF-8 (byte 0x{error.object[error.start]:02x} at offset {error.start})") from None


def _gradlint_table(path: Path) -> Optional[dict]:
    """The [tool.gradlint] table of the TOML file `path`; None when it has none."""
    tool = _read_toml(path).get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"`tool` in {path} must be a table")
    table = tool.get("gradlint")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"`tool.gradlint` in {path} must be a table")
    return table


def load_settings(config: Optional[Path], overrides: Overrides, cwd: Optional[Path] = None) -> Settings:
    _NEAREST.clear()  # a new run reads the configurations afresh
    _LOADED.clear()
    cwd = cwd or Path.cwd()
    if overrides.isolated and config is not None:
        raise ConfigError("--config with a file cannot be used with --isolated")
    path = config if config is not None or overrides.isolated else find_config(cwd.resolve())
    settings = Settings(root=cwd.resolve())
    if path is not None:
        table = _gradlint_table(path)
        if table is None:
            if config is not None and path.name != "pyproject.toml":
                table = _read_toml(path)
            else:
                table = {}
        settings = _apply_table(Settings(root=path.resolve().parent, config_path=path), table, str(path))
    return replace(_apply_overrides(settings, overrides), overrides=overrides, same_for_every_file=config is not None or overrides.isolated)


def settings_for_file(settings: Settings, path: Path) -> Settings:
    """The settings that hold for `path`: those of the nearest configuration above it (as ruff's
    hierarchical configuration, and as the language server reads them), with the same
    command-line options; `settings` themselves when one configuration holds for every file."""
    if settings.same_for_every_file or settings.overrides is None:
        return settings
    nearest = _nearest_config(path.resolve().parent)
    if nearest is None or nearest == settings.config_path:
        return settings
    return _settings_of(nearest, settings.overrides)


def settings_for_directory(settings: Settings, directory: Path) -> Settings:
    """The settings that hold for the files of `directory` (see `settings_for_file`)."""
    if settings.same_for_every_file or settings.overrides is None:
        return settings
    nearest = _nearest_config(directory.resolve())
    if nearest is None or nearest == settings.config_path:
        return settings
    return _settings_of(nearest, settings.overrides)


def _nearest_config(directory: Path) -> Optional[Path]:
    """`find_config(directory)`, each directory read once per run (a walk asks for every one)."""
    if directory not in _NEAREST:
        own = directory / "pyproject.toml"
        if _is_file(own) and _gradlint_table(own) is not None:
            _NEAREST[directory] = own
        else:
            _NEAREST[directory] = None if directory.parent == directory else _nearest_config(directory.parent)
    return _NEAREST[directory]


def _settings_of(config: Path, overrides: Overrides) -> Settings:
    key = (config, id(overrides))
    if key not in _LOADED:
        table = _gradlint_table(config) or {}
        settings = _apply_table(Settings(root=config.resolve().parent, config_path=config), table, str(config))
        _LOADED[key] = replace(_apply_overrides(settings, overrides), overrides=overrides)
    return _LOADED[key]


def _is_file(path: Path) -> bool:
    """A file there; False for a directory that cannot be searched (the walk reports it)."""
    try:
        return path.is_file()
    except OSError:
        return False


# Per run: the nearest configuration of each directory, and each configuration's settings.
_NEAREST: dict[Path, Optional[Path]] = {}
_LOADED: dict[tuple[Path, int], Settings] = {}


def _apply_table(settings: Settings, table: dict, origin: str) -> Settings:
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"unknown key `{unknown[0]}` in [tool.gradlint] of {origin}")
    changes: dict[str, Any] = {}
    for key in ("select", "extend-select", "ignore"):
        if key in table:
            changes[key.replace("-", "_")] = validate_codes(_strings(table[key], key, origin), origin)
    if "select" in table:
        changes["select_given"] = True
    for key in ("exclude", "extend-exclude"):
        if key in table:
            changes[key.replace("-", "_")] = tuple(_strings(table[key], key, origin))
    if "per-file-ignores" in table:
        value = table["per-file-ignores"]
        if not isinstance(value, dict):
            raise ConfigError(f"`per-file-ignores` in {origin} must be a table of glob = [codes]")
        changes["per_file_ignores"] = tuple(
            (pattern, validate_codes(_strings(codes, f"per-file-ignores.{pattern}", origin), origin)) for pattern, codes in value.items()
        )
    for key in ("unsafe-fixes", "respect-gitignore", "force-exclude"):
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"`{key}` in {origin} must be true or false")
            changes[key.replace("-", "_")] = table[key]
    if "cache-dir" in table:
        if not isinstance(table["cache-dir"], str):
            raise ConfigError(f"`cache-dir` in {origin} must be a string")
        changes["cache_dir"] = table["cache-dir"]
    if "fail-on" in table:
        changes["fail_on"] = validate_fail_on(table["fail-on"], f"`fail-on` in {origin}")
    if "target-torch" in table:
        changes["target_torch"] = validate_target_torch(table["target-torch"], f"`target-torch` in {origin}")
    return replace(settings, **changes)


def validate_fail_on(value: Any, origin: str) -> str:
    if value not in FAIL_ON:
        raise ConfigError(f"{origin} must be one of {', '.join(map(repr, FAIL_ON))}, not {value!r}")
    return value


def validate_target_torch(value: Any, origin: str) -> str:
    """A torch release written "X.Y" or "X.Y.Z" (a string: TOML would read 2.10 as the float 2.1)."""
    if not isinstance(value, str) or torch_release(value.strip()) is None:
        raise ConfigError(f'{origin} must be a torch release as a string, "X.Y" or "X.Y.Z" (e.g. "2.1"), not {value!r}')
    return value.strip()


def _strings(value: Any, key: str, origin: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"`{key}` in {origin} must be a list of strings")
    return value


def _apply_overrides(settings: Settings, overrides: Overrides) -> Settings:
    """The command line over the configuration: its `--config KEY=VALUE` table, then its options."""
    if overrides.table:
        settings = _apply_table(settings, overrides.table, "--config")
    changes: dict[str, Any] = {}
    if overrides.select is not None:
        changes["select"] = validate_codes(overrides.select, "--select")
        changes["extend_select"] = ()
        changes["select_given"] = True
    if overrides.extend_select:
        changes["extend_select"] = changes.get("extend_select", settings.extend_select) + validate_codes(
            overrides.extend_select, "--extend-select"
        )
    if overrides.ignore:
        changes["ignore"] = settings.ignore + validate_codes(overrides.ignore, "--ignore")
    if overrides.unsafe_fixes is not None:
        changes["unsafe_fixes"] = overrides.unsafe_fixes
    if overrides.force_exclude is not None:
        changes["force_exclude"] = overrides.force_exclude
    if overrides.respect_gitignore is not None:
        changes["respect_gitignore"] = overrides.respect_gitignore
    if overrides.cache_dir is not None:
        changes["cache_dir"] = overrides.cache_dir
    if overrides.fail_on is not None:
        changes["fail_on"] = validate_fail_on(overrides.fail_on, "--fail-on")
    if overrides.target_torch is not None:
        changes["target_torch"] = validate_target_torch(overrides.target_torch, "--target-torch")
    if overrides.exclude is not None:
        changes["exclude"] = overrides.exclude
    if overrides.extend_exclude:
        changes["extend_exclude"] = settings.extend_exclude + overrides.extend_exclude
    if overrides.per_file_ignores is not None or overrides.extend_per_file_ignores:
        replaced = settings.per_file_ignores if overrides.per_file_ignores is None else overrides.per_file_ignores
        changes["per_file_ignores"] = replaced + overrides.extend_per_file_ignores
    return replace(settings, **changes)


def parse_config_override(text: str) -> dict[str, Any]:
    """One `--config KEY=VALUE` (`"per-file-ignores = {'tests/*' = ['GL201']}"`) as a table;
    ruff's `lint.` prefix is accepted. Raises ConfigError when it is not a TOML key and value."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"--config `{text}` is neither a configuration file nor a TOML `KEY = VALUE` override ({error})") from None
    lint = table.pop("lint", None)
    if isinstance(lint, dict):
        table.update(lint)
    elif lint is not None:
        table["lint"] = lint  # reported as an unknown key
    return table


def parse_pattern_codes(values: Iterable[str], option: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`--per-file-ignores 'tests/*:GL201,scripts/*:GL3'` (ruff's PATTERN:CODE pairs) -> per-file-ignores,
    the codes of one pattern together in the order given."""
    grouped: dict[str, list[str]] = {}
    for pair in (part for value in values for part in value.split(",") if part.strip()):
        pattern, colon, code = pair.rpartition(":")
        if not colon or not pattern.strip() or not code.strip():
            raise ConfigError(f"{option} `{pair}` is not PATTERN:CODE (e.g. `tests/*:GL201`)")
        grouped.setdefault(pattern.strip(), []).append(code.strip())
    return tuple((pattern, validate_codes(codes, option)) for pattern, codes in grouped.items())


def split_codes(values: Iterable[str]) -> tuple[str, ...]:
    """`--select GL1,GL2 --select GL3` -> ('GL1', 'GL2', 'GL3')."""
    return tuple(part for value in values for part in value.split(",") if part.strip())


def _glob_match(pattern: str, relative_path: str) -> bool:
    from fnmatch import fnmatchcase

    pattern = pattern.rstrip("/")
    name = relative_path.rsplit("/", 1)[-1]
    return (
        fnmatchcase(relative_path, pattern)
        or fnmatchcase(relative_path, pattern + "/*")
        or ("/" not in pattern and fnmatchcase(name, pattern))
    )
