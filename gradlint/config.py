"""`[tool.gradlint]` settings and rule selection by code prefix (ruff semantics)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Optional

from gradlint.fix.kinds import torch_release
from gradlint.rules import all_codes, opt_in_codes

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
        "fixable",
        "extend-fixable",
        "unfixable",
        "extend-unfixable",
        "extend",  # another configuration file whose settings this one's override
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
    # Which rules' fixes may be applied, as ruff's `fixable`/`unfixable`: the configuration's
    # selection, then the command line's (`--fixable` starts afresh, as `--select` does in ruff).
    fixable: Optional[tuple[str, ...]] = None  # None: every rule
    extend_fixable: tuple[str, ...] = ()
    unfixable: tuple[str, ...] = ()
    extend_unfixable: tuple[str, ...] = ()
    command_line_fixability: "FixSelection" = field(default_factory=lambda: FixSelection())
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

    def fixable_codes(self) -> frozenset[str]:
        """The rules whose fixes `fix`, `check --fix` and the fixable counts may use."""
        configured = FixSelection(self.fixable, self.extend_fixable, self.unfixable + self.extend_unfixable)
        return self.command_line_fixability.applied_to(configured.applied_to(all_codes()))

    def fails(self, severity: str) -> bool:
        """Whether a finding of `severity` ("error" or "warning") makes the run fail under `fail-on`."""
        return severity == "error" or self.fail_on == "warning"


@dataclass(frozen=True)
class FixSelection:
    """One layer of `fixable`/`extend-fixable`/`unfixable`, resolved as ruff resolves each of its
    rule selections: within the layer the most specific prefix wins (unfixable on a tie); a layer
    with `fixable` replaces what came before, one without it only adds and removes."""

    fixable: Optional[tuple[str, ...]] = None
    extend_fixable: tuple[str, ...] = ()
    unfixable: tuple[str, ...] = ()

    def applied_to(self, codes: Iterable[str]) -> frozenset[str]:
        result = set() if self.fixable is not None else set(codes)
        chosen = (self.fixable or ()) + self.extend_fixable
        for code in all_codes():
            on = max((len(prefix) for prefix in chosen if code.startswith(prefix)), default=-1)
            off = max((len(prefix) for prefix in self.unfixable if code.startswith(prefix)), default=-1)
            if on > off:
                result.add(code)
            elif off >= 0:
                result.discard(code)
        return frozenset(result)


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
    fixable: Optional[tuple[str, ...]] = None
    extend_fixable: tuple[str, ...] = ()
    unfixable: tuple[str, ...] = ()
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


# The configuration files of one directory, strongest first (as ruff's `.ruff.toml`, `ruff.toml`,
# `pyproject.toml`): a gradlint file holds the settings at its top level and always counts; a
# pyproject.toml counts only with a [tool.gradlint] table.
CONFIG_NAMES = (".gradlint.toml", "gradlint.toml", "pyproject.toml")


def find_config(start: Path) -> Optional[Path]:
    """The nearest configuration file from `start` upward (see CONFIG_NAMES)."""
    for directory in (start, *start.parents):
        found = config_in(directory)
        if found is not None:
            return found
    return None


def _toml():
    """The TOML reader, imported when a configuration is first read (`--version` reads none)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


def config_in(directory: Path) -> Optional[Path]:
    """The configuration file of `directory` itself, if it has one."""
    for name in CONFIG_NAMES:
        candidate = directory / name
        if _is_file(candidate) and (name != "pyproject.toml" or _gradlint_table(candidate) is not None):
            return candidate
    return None


def _own_table(path: Path) -> dict:
    """The settings a configuration file holds itself: [tool.gradlint] of a pyproject.toml (empty
    without one), the top level of any other file (or its [tool.gradlint], when it has one)."""
    if path.name == "pyproject.toml":
        return _gradlint_table(path) or {}
    data = _read_toml(path)
    table = data.get("tool", {}).get("gradlint") if isinstance(data.get("tool"), dict) else None
    return data if table is None else table


def _resolved_table(path: Path, extending: tuple[Path, ...] = ()) -> dict:
    """The settings of `path` with those it `extend`s beneath its own, every relative path in them
    made relative to `path`'s directory (each file's paths are relative to the file that names them)."""
    resolved = path.resolve()
    if resolved in extending:
        chain = " -> ".join(str(one) for one in (*extending[extending.index(resolved) :], resolved))
        raise ConfigError(f"`extend` forms a cycle: {chain}")
    if resolved not in _TABLES:
        table = dict(_own_table(path))
        _apply_table(Settings(root=resolved.parent), {k: v for k, v in table.items() if k != "extend"}, str(path))  # errors name their file
        base_name = table.pop("extend", None)
        if base_name is not None:
            if not isinstance(base_name, str) or not base_name.strip():
                raise ConfigError(f"`extend` in {path} must be the path of a configuration file")
            base = Path(os.path.expandvars(base_name)).expanduser()
            base = base if base.is_absolute() else resolved.parent / base
            if not _is_file(base):
                raise ConfigError(f"`extend` in {path} names {base_name}, which is not a file")
            inherited = _rebased(_resolved_table(base, (*extending, resolved)), base.resolve().parent, resolved.parent)
            table = _merged(inherited, table)
        _TABLES[resolved] = table
    return _TABLES[resolved]


def _merged(base: dict, own: dict) -> dict:
    """`own` over `base`, as ruff merges an extended configuration: a key given replaces the base's,
    except that `extend-exclude` adds to it, and `ignore` and `extend-select` refine the base's rule
    selection unless `select` starts a new one."""
    merged = {**base, **own}
    merged["extend-exclude"] = [*_listed(base.get("extend-exclude")), *_listed(own.get("extend-exclude"))]
    if "select" in own:  # a new selection: the base's additions and ignores belonged to the old one
        merged["extend-select"], merged["ignore"] = _listed(own.get("extend-select")), _listed(own.get("ignore"))
    else:
        ignored, extended = _listed(own.get("ignore")), _listed(own.get("extend-select"))
        # What the file itself ignores or selects is decided after the base's, as if chained.
        merged["extend-select"] = [*_not_under(_listed(base.get("extend-select")), ignored), *extended]
        merged["ignore"] = [*_not_under(_listed(base.get("ignore")), extended), *ignored]
    return {key: value for key, value in merged.items() if value != [] or key in own or key in base}


def _listed(value: Any) -> list:
    return [value] if isinstance(value, str) else list(value or [])


def _not_under(codes: list, prefixes: list) -> list:
    """`codes` without those that one of `prefixes` covers."""
    return [code for code in codes if not any(str(code).upper().startswith(str(prefix).upper()) for prefix in prefixes)]


def _rebased(table: dict, origin: Path, target: Path) -> dict:
    """`table`'s paths (anchored at `origin`) anchored at `target` instead; an anchored pattern that
    points outside `target` can match nothing there and is left out."""
    if origin == target:
        return table
    rebased = dict(table)
    for key in ("exclude", "extend-exclude"):
        if key in table:
            rebased[key] = [p for p in (_rebased_pattern(p, origin, target, anchor="/") for p in _listed(table[key])) if p is not None]
    if isinstance(table.get("per-file-ignores"), dict):
        rebased["per-file-ignores"] = {
            new: codes
            for pattern, codes in table["per-file-ignores"].items()
            if (new := _rebased_pattern(pattern, origin, target, anchor="")) is not None
        }
    if isinstance(table.get("cache-dir"), str):
        rebased["cache-dir"] = str(origin / Path(table["cache-dir"]).expanduser())
    return rebased


def _rebased_pattern(pattern: str, origin: Path, target: Path, anchor: str) -> Optional[str]:
    """A gitignore-style pattern of `origin` as one of `target`. A pattern without a slash but at its
    end matches a name at any depth, wherever it is anchored; `anchor` keeps a rebased pattern
    that lost its slashes anchored (gitignore's leading `/`)."""
    negated = pattern.startswith("!")
    body = pattern[1:] if negated else pattern
    if "/" not in body.rstrip("/") or body.startswith("**/"):
        return pattern
    try:
        relative = Path(os.path.normpath(origin / body.lstrip("/"))).relative_to(target).as_posix()
    except ValueError:
        return None
    if relative == ".":
        return None
    trailing = "/" if body.endswith("/") else ""
    relative = relative if "/" in relative else anchor + relative
    return ("!" if negated else "") + relative + trailing


def _read_toml(path: Path) -> dict:
    tomllib = _toml()
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
    _clear_run()
    cwd = cwd or Path.cwd()
    if overrides.isolated and config is not None:
        raise ConfigError("--config with a file cannot be used with --isolated")
    path = config if config is not None or overrides.isolated else find_config(cwd.resolve())
    settings = Settings(root=cwd.resolve())
    if path is not None:
        settings = _configured(path)
    return replace(_apply_overrides(settings, overrides), overrides=overrides, same_for_every_file=config is not None or overrides.isolated)


def configuration_table(path: Path) -> dict:
    """The settings of a configuration file with those it extends, read afresh, as a table."""
    _clear_run()
    return _resolved_table(path)


def layered_settings(config: Path, beneath: list[tuple[dict, Path]], origin: str) -> Settings:
    """The settings of `config` over `beneath`: tables, weakest first, each with the directory its
    paths are relative to, merged as `extend` merges (what `config` sets wins). `origin` names
    the tables of `beneath` in an error."""
    _clear_run()
    root = config.resolve().parent
    table: dict = {}
    for layer, directory in beneath:
        _apply_table(Settings(root=directory), layer, origin)
        table = _merged(table, _rebased(layer, directory.resolve(), root))
    return _apply_table(Settings(root=root, config_path=config), _merged(table, _resolved_table(config)), str(config))


def _clear_run() -> None:
    _NEAREST.clear()  # a new run reads the configurations afresh
    _LOADED.clear()
    _TABLES.clear()


def _configured(path: Path) -> Settings:
    """The settings of a configuration file (with those it extends), rooted at its directory."""
    return _apply_table(Settings(root=path.resolve().parent, config_path=path), _resolved_table(path), str(path))


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
        own = config_in(directory)
        if own is not None:
            _NEAREST[directory] = own
        else:
            _NEAREST[directory] = None if directory.parent == directory else _nearest_config(directory.parent)
    return _NEAREST[directory]


def _settings_of(config: Path, overrides: Overrides) -> Settings:
    key = (config, id(overrides))
    if key not in _LOADED:
        _LOADED[key] = replace(_apply_overrides(_configured(config), overrides), overrides=overrides)
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
_TABLES: dict[Path, dict] = {}  # each file's settings with those it extends


def _apply_table(settings: Settings, table: dict, origin: str) -> Settings:
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"unknown key `{unknown[0]}` in {_table_name(origin)}")
    if "extend" in table:
        raise ConfigError(f"`extend` in {origin}: only a configuration file can extend another")
    changes: dict[str, Any] = {}
    for key in ("select", "extend-select", "ignore", "fixable", "extend-fixable", "unfixable", "extend-unfixable"):
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


def _table_name(origin: str) -> str:
    """Where settings were read, as an error names it: `[tool.gradlint] of pyproject.toml`."""
    return f"[tool.gradlint] of {origin}" if Path(origin).name == "pyproject.toml" else origin


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
    if overrides.fixable is not None or overrides.extend_fixable or overrides.unfixable:
        changes["command_line_fixability"] = FixSelection(
            validate_codes(overrides.fixable, "--fixable") if overrides.fixable is not None else None,
            validate_codes(overrides.extend_fixable, "--extend-fixable"),
            validate_codes(overrides.unfixable, "--unfixable"),
        )
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
    tomllib = _toml()
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
