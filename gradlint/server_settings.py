"""The language server's client settings: what the editor sends in `initializationOptions` and
`workspace/didChangeConfiguration`, named as ruff's server names them.

```json
{"settings": {"lint": {"select": ["GL1"], "extendSelect": ["GL303"], "ignore": ["GL103"]},
              "fixAll": true, "configuration": "~/gradlint.toml", "configurationPreference": "editorFirst"}}
```

The configuration files stay the base; with `configurationPreference` "editorFirst" (the default,
as ruff's) the editor's settings apply over them as the command line's options do; "editorOnly"
reads no configuration file but the editor's `configuration`; "filesystemFirst" makes the
configuration file the stronger: the editor's settings hold where it says nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional, Union

from gradlint.config import (
    ConfigError,
    Overrides,
    Settings,
    configuration_table,
    find_config,
    layered_settings,
    load_settings,
    validate_codes,
)

PREFERENCES = ("editorFirst", "filesystemFirst", "editorOnly")


@dataclass(frozen=True)
class ClientSettings:
    select: Optional[tuple[str, ...]] = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fix_all: bool = True  # offer `source.fixAll.gradlint`
    configuration: Union[None, str, dict] = None  # a configuration file's path, or settings inline
    preference: str = "editorFirst"
    inline: dict = field(default_factory=dict)  # `configuration` given inline, as a table of settings

    def overrides(self) -> Overrides:
        table = dict(self.inline)
        if self.select is not None:
            # A new selection, as in ruff's server: the files' `ignore` and `extend-select` belonged to theirs.
            table.update({"select": list(self.select), "extend-select": [], "ignore": []})
        return Overrides(extend_select=self.extend_select, ignore=self.ignore, table=table)

    def _layers(self, default_root: Path) -> list[tuple[dict, Path]]:
        """The editor's settings as tables, weakest first: its configuration file, its inline
        configuration, its `lint` settings (the last two with paths relative to the workspace folder)."""
        layers = []
        config = self.configuration_file(default_root)
        if config is not None:
            layers.append((configuration_table(config), config.resolve().parent))
        lint = {"select": list(self.select)} if self.select is not None else {}
        lint.update({key: list(codes) for key, codes in (("extend-select", self.extend_select), ("ignore", self.ignore)) if codes})
        return [*layers, (dict(self.inline), default_root), (lint, default_root)]

    def configuration_file(self, base: Optional[Path] = None) -> Optional[Path]:
        """The file `configuration` names; a relative path is relative to `base` (the workspace folder)."""
        if not isinstance(self.configuration, str):
            return None
        named = Path(os.path.expandvars(self.configuration)).expanduser()
        return base / named if base is not None and not named.is_absolute() else named

    def settings_for(self, path: Optional[Path], default_root: Path) -> Settings:
        """The settings of a document at `path` (None: unsaved) under these client settings.
        Raises ConfigError for a broken configuration."""
        project = find_config(path.parent.resolve()) if path is not None and self.preference != "editorOnly" else None
        if self.preference == "filesystemFirst" and project is not None:
            return layered_settings(project, self._layers(default_root), "the editor's settings")
        config = self.configuration_file(default_root) or project
        if config is None:
            return load_settings(None, replace(self.overrides(), isolated=True), cwd=default_root)
        return load_settings(config, self.overrides())


def client_settings(options: Any) -> tuple[ClientSettings, list[str]]:
    """The settings in an `initializationOptions` or a `didChangeConfiguration` payload (ruff's
    `{"settings": {...}}`, a `{"gradlint": {...}}` section, or the settings themselves), and a
    problem for each setting left out because it is not valid."""
    settings = _settings_object(options)
    problems: list[str] = []
    changes: dict[str, Any] = {}
    lint = settings.get("lint")
    if isinstance(lint, dict):
        for names, attribute in ((("select",), "select"), (("extendSelect", "extend-select"), "extend_select"), (("ignore",), "ignore")):
            name = next((name for name in names if name in lint), None)
            if name is None:
                continue
            codes = _codes(lint[name], f"`lint.{names[0]}`", problems)
            if codes is not None:
                changes[attribute] = codes
    if "fixAll" in settings:
        if isinstance(settings["fixAll"], bool):
            changes["fix_all"] = settings["fixAll"]
        else:
            problems.append("client setting `fixAll` must be true or false; ignored")
    configuration = settings.get("configuration")
    if isinstance(configuration, str) and configuration.strip():
        changes["configuration"] = configuration
    elif isinstance(configuration, dict):
        changes["configuration"] = configuration
        changes["inline"] = _inline_table(configuration)
    elif configuration is not None:
        problems.append("client setting `configuration` must be a file path or an object of settings; ignored")
    preference = settings.get("configurationPreference")
    if preference in PREFERENCES:
        changes["preference"] = preference
    elif preference is not None:
        problems.append(f"client setting `configurationPreference` must be one of {', '.join(PREFERENCES)}; ignored")
    return ClientSettings(**changes), problems


def _settings_object(options: Any) -> dict:
    if not isinstance(options, dict):
        return {}
    for key in ("settings", "gradlint"):
        inner = options.get(key)
        if isinstance(inner, list):  # one entry per workspace folder (VS Code's form): the first
            inner = next((item for item in inner if isinstance(item, dict)), None)
        if isinstance(inner, dict):
            return inner
    return options


def _codes(value: Any, name: str, problems: list[str]) -> Optional[tuple[str, ...]]:
    if not isinstance(value, list) or not all(isinstance(code, str) for code in value):
        problems.append(f"client setting {name} must be a list of rule codes; ignored")
        return None
    try:
        return validate_codes(value, f"the client setting {name}")
    except ConfigError as error:
        problems.append(f"{error}; ignored")
        return None


def _inline_table(configuration: dict) -> dict:
    """Inline settings as a `[tool.gradlint]` table; ruff's `lint` section is accepted."""
    table = {key: value for key, value in configuration.items() if key != "lint"}
    if isinstance(configuration.get("lint"), dict):
        table.update(configuration["lint"])
    return table


def settings_for(path: Optional[Path], roots: tuple[Path, ...], problems: list[str], client: ClientSettings) -> Settings:
    """The settings of the nearest configuration above `path`, as `gradlint check` reads them, with
    the client's settings over them; the defaults (rooted at the workspace folder) when there is
    none, and when the configuration is broken."""
    default = Settings(root=_default_root(path, roots))
    try:
        return client.settings_for(path, default.root)
    except (ConfigError, OSError) as error:
        problems.append(f"{error}; using the default settings")
        return default


def _default_root(path: Optional[Path], roots: tuple[Path, ...]) -> Path:
    """Without a configuration, excludes are relative to the innermost workspace folder holding
    the file (as to the current directory for `gradlint check`)."""
    if path is None:
        return roots[0] if roots else Path.cwd()
    resolved = path.resolve()
    containing = [root for root in roots if resolved.is_relative_to(root)]
    return max(containing, key=lambda root: len(root.parts)) if containing else resolved.parent
