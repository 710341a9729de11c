"""The `gradlint` command line: check, fix, rules, rule."""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, Optional

import click

from gradlint import __version__
from gradlint.config import (
    FAIL_ON,
    ConfigError,
    Overrides,
    Settings,
    load_settings,
    parse_config_override,
    parse_pattern_codes,
    settings_for_file,
    split_codes,
)
from gradlint.docs import render_rule
from gradlint.interrupts import InterruptedExit, end_process, exit_interrupted, handle_termination, ignore_after_the_run
from gradlint.files import MAX_FILE_BYTES, SourceReadError, describe_os_error, read_source, write_output_atomic
from gradlint.terminal import ProgressBar, use_color, wants_progress
from gradlint.report import FORMATS, HUMAN_FORMATS, RenderOptions, render, render_fix_summary, render_fixed_only, render_statistics
from gradlint.rules import ALL_MIGRATIONS, file_rule_codes, presets, rule_infos, severity_of
from gradlint.source import UndecodableSource, decode_source
from gradlint.pool import tune_garbage_collector

# LibCST, the rules, the engine and the runner are imported by the commands that use them (in
# their bodies): `--version`, `rules` and `rule` start without them (tests/test_startup.py).
if TYPE_CHECKING:
    from gradlint.runner import RunSummary

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class FileSize(click.ParamType):
    """A size in bytes: `2097152`, `512K`, `2M`, `2MiB`; `0` means no limit."""

    name = "size"
    UNITS = {
        "": 1,
        "B": 1,
        "K": 1024,
        "KB": 1024,
        "KIB": 1024,
        "M": 1024**2,
        "MB": 1024**2,
        "MIB": 1024**2,
        "G": 1024**3,
        "GB": 1024**3,
        "GIB": 1024**3,
    }

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        text = str(value).strip().upper()
        number = text.rstrip("KMGIB")
        unit = text[len(number) :]
        try:
            size = float(number)
        except ValueError:
            size = -1.0
        if unit not in self.UNITS or size < 0:
            self.fail(f"{value!r} is not a size such as 2097152, 512K or 2M", param, ctx)
        return int(size * self.UNITS[unit])


class ConfigOption(click.ParamType):
    """`--config`: a configuration file, or a TOML `KEY = VALUE` override (as ruff's)."""

    name = "config"

    def convert(self, value, param, ctx):
        if isinstance(value, (Path, dict)):
            return value
        if "=" not in value or Path(value).is_file():
            return Path(value)
        try:
            return parse_config_override(value)
        except ConfigError as error:
            self.fail(str(error), param, ctx)


def _selection_options(function):
    options = [
        click.argument(
            "paths", nargs=-1, type=click.Path(path_type=Path, allow_dash=True, readable=False)
        ),  # unreadable: reported per file
        click.option("--select", multiple=True, help="Rule codes or prefixes to enable (replaces the configured set)."),
        click.option("--extend-select", multiple=True, help="Rule codes or prefixes to enable in addition."),
        click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable."),
        click.option(
            "--fixable",
            multiple=True,
            metavar="CODES",
            help="Rule codes or prefixes whose fixes may be applied (replaces the configured `fixable` and `unfixable`).",
        ),
        click.option("--extend-fixable", multiple=True, metavar="CODES", help="Rule codes or prefixes to make fixable in addition."),
        click.option("--unfixable", multiple=True, metavar="CODES", help="Rule codes or prefixes whose fixes are never applied."),
        click.option(
            "--config",
            "config_options",
            multiple=True,
            type=ConfigOption(),
            metavar="PATH|KEY=VALUE",
            help="A configuration file to use for every file, or a TOML override of one setting "
            "(`--config \"per-file-ignores = {'tests/*' = ['GL201']}\"`); repeatable.",
        ),
        click.option("--isolated", is_flag=True, help="Ignore every configuration file."),
        click.option("--exclude", multiple=True, help="Patterns of paths to leave out (replaces the configured `exclude`)."),
        click.option("--extend-exclude", multiple=True, help="Patterns of paths to leave out, besides `exclude`."),
        click.option(
            "--per-file-ignores",
            multiple=True,
            metavar="PATTERN:CODE",
            help="Rules to ignore in matching files (replaces the configured ones).",
        ),
        click.option(
            "--extend-per-file-ignores", multiple=True, metavar="PATTERN:CODE", help="Rules to ignore in matching files, besides those."
        ),
        click.option("--output-format", type=click.Choice(sorted(FORMATS)), default="text", show_default=True),
        click.option(
            "-o", "--output-file", type=click.Path(path_type=Path, dir_okay=False), help="Write the output to this file, not stdout."
        ),
        click.option("--color/--no-color", default=None, help="Colour the output (default: on a terminal; NO_COLOR, FORCE_COLOR)."),
        click.option("--statistics", is_flag=True, help="Show counts per rule instead of each finding."),
        click.option("--show-fixes", is_flag=True, help="Show each available fix as a diff under its finding (text format)."),
        click.option("--show-settings", is_flag=True, help="Show the settings used for the first file, then exit."),
        click.option("--show-files", is_flag=True, help="List the files that would be checked, then exit."),
        click.option(
            "--fail-on",
            type=click.Choice(FAIL_ON),
            default=None,
            help="The least severe finding that makes the exit code 1: `warning` (the default: any finding) or `error` "
            "(warnings are reported but do not fail the run).",
        ),
        click.option(
            "--target-torch",
            default=None,
            metavar="X.Y",
            help="The oldest torch release the code must run on: fixes whose replacement needs a newer one become unsafe "
            "(default: the configuration's, or the oldest release that has every replacement).",
        ),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain."),
        click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when fixes changed a file, even if no findings remain."),
        click.option("--ignore-noqa", is_flag=True, help="Ignore every `# noqa` comment, line and whole-file."),
        click.option(
            "--force-exclude/--no-force-exclude",
            default=None,
            help="Apply exclude and extend-exclude to files named on the command line too.",
        ),
        click.option(
            "--respect-gitignore/--no-respect-gitignore",
            default=None,
            help="Leave out what git ignores (default: the configuration's, on).",
        ),
        click.option("--no-cache", is_flag=True, help="Do not read or write the result cache."),
        click.option(
            "--cache-dir", default=None, help="Where the result cache is kept (default: `.gradlint_cache` at the configuration's root)."
        ),
        click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes (0: one per core)."),
        click.option("--stdin-filename", default=None, help="The file name to report for source read from `-`."),
        click.option("-q", "--quiet", count=True, help="Print findings only, no summary (`-qq`: as --silent)."),
        click.option("-s", "--silent", is_flag=True, help="Print nothing; only the exit code tells."),
        click.option("-v", "--verbose", is_flag=True, help="Say why each file was or was not checked; tracebacks of internal errors."),
        click.option(
            "--max-file-size",
            type=FileSize(),
            default=MAX_FILE_BYTES,
            show_default="2M",
            help=(
                "Memory budget, in bytes of source: a larger file is checked in pieces of whole top-level statements "
                "within it (a statement over it is left out with a warning), and fixed so; 0: no limit."
            ),
        ),
        click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Also apply fixes that may change behaviour."),
        click.option("--diff", is_flag=True, help="Print a unified diff of the fixes and write nothing."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="gradlint", message="%(prog)s %(version)s")
def cli() -> None:
    """gradlint: find autograd mistakes in PyTorch training code and migrate legacy APIs."""


class Invocation:
    """One `check` or `fix` command line: its options, and where and how its output goes."""

    def __init__(self, options: dict) -> None:
        self.__dict__.update(options)
        self.silent = self.silent or self.quiet >= 2
        self.quiet = bool(self.quiet) or self.silent
        self.stdout = None  # opened by `run`

    def settings(self, select: tuple[str, ...], also: tuple[str, ...] = (), note: bool = True) -> Settings:
        """The settings of the run; `also`: codes selected besides the user's (`note`: say which
        configuration is used, with --verbose)."""
        paths = [value for value in self.config_options if isinstance(value, Path)]
        if len(paths) > 1:
            raise ConfigError("--config names more than one configuration file")
        table = {}
        for value in self.config_options:
            if isinstance(value, dict):
                table.update(value)
        overrides = Overrides(
            select=split_codes(select) if select else None,
            extend_select=split_codes(self.extend_select) + also,
            ignore=split_codes(self.ignore),
            unsafe_fixes=self.unsafe_fixes,
            force_exclude=self.force_exclude,
            exclude=split_codes(self.exclude) if self.exclude else None,
            extend_exclude=split_codes(self.extend_exclude),
            per_file_ignores=parse_pattern_codes(self.per_file_ignores, "--per-file-ignores") if self.per_file_ignores else None,
            extend_per_file_ignores=parse_pattern_codes(self.extend_per_file_ignores, "--extend-per-file-ignores"),
            respect_gitignore=self.respect_gitignore,
            cache_dir=str(Path(self.cache_dir).absolute()) if self.cache_dir else None,  # from here, not the root
            fail_on=self.fail_on,
            target_torch=self.target_torch,
            fixable=split_codes(self.fixable) if self.fixable else None,
            extend_fixable=split_codes(self.extend_fixable),
            unfixable=split_codes(self.unfixable),
            isolated=self.isolated,
            table=table,
        )
        settings = load_settings(paths[0] if paths else None, overrides)
        if note and not settings.codes() and not self.silent:
            # `--select ""` or `select = []`: a gate that checks nothing must not pass in silence.
            click.echo("gradlint: warning: no rules are selected (`select` is empty): nothing is checked", err=True)
        if self.verbose and note:
            origin = settings.config_path or ("none (--isolated)" if self.isolated else "none, the defaults")
            self.note(f"configuration: {origin}")
        return settings

    @property
    def color(self) -> bool:
        if self.color_option is not None:
            return self.color_option
        return self.output_file is None and use_color()

    def write(self, text: str, *, err: bool = False) -> None:
        """The report: to stdout, or the `--output-file`; stderr with `err`."""
        click.echo(encodable(text), nl=False, err=err, file=None if err else self.stdout, color=self.color)

    def note(self, text: str) -> None:
        if not self.silent:
            click.echo(f"gradlint: {text}", err=True)

    def run(self, body) -> NoReturn:
        """Run a command body, with its output to `--output-file` if given; configuration errors
        exit 2 with one line, never a traceback."""

        def in_output() -> int:
            if self.output_file is None:
                return body()
            try:
                self.output_file.parent.mkdir(parents=True, exist_ok=True)
                handle = open(self.output_file, "w", encoding="utf-8")
            except OSError as error:
                raise ConfigError(f"cannot write {self.output_file}: {describe_os_error(error)}") from None
            with handle:
                self.stdout = handle
                return body()

        sys.exit(_guarded(self.verbose, in_output))


def encodable(text: str) -> str:
    """`text` with the surrogates it may hold (a file name that is not UTF-8, a notebook's lone
    surrogate) written as escapes, as Python writes them to stderr: no UTF-8 stream takes them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _fail(message: str) -> NoReturn:
    click.echo(f"gradlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _report_errors(summary: RunSummary, run: Invocation) -> None:
    if run.silent:
        return
    if run.verbose:
        for path, verdict in summary.explained:
            click.echo(f"gradlint: {path}: {verdict}", err=True)
    for path, reason in summary.warnings:
        click.echo(f"gradlint: warning: {path}: {reason}", err=True)
    for path, reason in summary.errors:
        click.echo(f"gradlint: error: {path}: {reason}", err=True)


def _print_findings(summary: RunSummary, run: Invocation, settings: Settings, quiet: bool, stdin_sources=None) -> None:
    if run.silent:
        return
    if run.statistics:
        run.write(render_statistics(summary.findings, run.output_format, color=run.color, quiet=quiet, unsafe_fixes=settings.unsafe_fixes))
        return
    if run.output_format in HUMAN_FORMATS and not summary.findings and summary.errors:
        return  # the errors are the whole story: "All checks passed!" would contradict them
    problems = tuple((path, reason, "error") for path, reason in summary.errors) + tuple(
        (path, reason, "warning") for path, reason in summary.warnings
    )
    options = RenderOptions(
        quiet=quiet,
        color=run.color,
        show_fixes=run.show_fixes,
        unsafe_fixes=settings.unsafe_fixes,
        source_of=_source_reader(stdin_sources or {}),
        problems=problems,
    )
    run.write(render(summary.findings, run.output_format, options))


def _source_reader(known: dict):
    """The decoded text of a reported file (`known` holds stdin's); None when it cannot be read or
    decoded. The text reporter asks once per file."""

    def source_of(path: str):
        if path in known:
            return known[path]
        try:
            return _decoded_or_none(read_source(Path(path)))
        except (SourceReadError, OSError):
            return None

    return source_of


def _progress_bar() -> Optional[ProgressBar]:
    return ProgressBar(sys.stderr) if wants_progress(sys.stderr, sys.stdout) else None


def _run_with_progress(function, *args, **kwargs) -> RunSummary:
    bar = _progress_bar()
    try:
        return function(*args, progress=bar, **kwargs)
    finally:
        if bar is not None:
            bar.close()


def _exit_code(summary: RunSummary, exit_zero: bool, settings: Settings) -> int:
    if summary.errors:
        return EXIT_ERROR
    if not exit_zero and any(_fails(finding, settings) for finding in summary.findings):
        return EXIT_FINDINGS
    return EXIT_OK


def _fails(finding, settings: Settings) -> bool:
    """Whether a finding fails the run under the `fail-on` of its file's configuration."""
    return settings_for_file(settings, Path(finding.path)).fails(severity_of(finding.code))


def _guarded(verbose: bool, action):
    """Run a command body; configuration errors exit 2 with one line, never a traceback."""
    try:
        return action()
    except ConfigError as error:
        _fail(str(error))
    except KeyboardInterrupt as interrupt:
        exit_interrupted(interrupt)
    except Exception as error:  # last line of defence: one line, traceback only with --verbose
        if verbose:
            traceback.print_exc()
        _fail(f"internal error: {type(error).__name__}: {error}")


def _paths_or_here(paths) -> list[Path]:
    return list(paths) or [Path(".")]


def _reads_stdin(paths, stdin_filename: Optional[str] = None) -> bool:
    """`-` among the paths, or no paths but `--stdin-filename` (as ruff reads it)."""
    return any(str(path) == "-" for path in paths) or (not paths and stdin_filename is not None)


def _warn_if_nothing_found(summary: RunSummary, run: Invocation) -> None:
    """A run over paths that hold no Python file passes: say so, as ruff does."""
    if summary.files == 0 and not summary.errors and not run.silent:
        click.echo("gradlint: warning: no Python files found under the given paths", err=True)


def _show(run: Invocation, settings: Settings) -> Optional[int]:
    """`--show-files` and `--show-settings`: what a run would use, without running it."""
    if not (run.show_files or run.show_settings):
        return None
    from gradlint.discovery import discover

    found = discover(_paths_or_here(run.paths), settings)
    files = sorted(str(path.absolute()) for path in found.files)
    for path, reason in found.errors:
        click.echo(f"gradlint: error: {path}: {reason}", err=True)
    if not files:
        click.echo("gradlint: warning: no Python files found under the given paths", err=True)
        return EXIT_ERROR if run.show_settings or found.errors else EXIT_OK
    if run.show_files:
        run.write("".join(f"{path}\n" for path in files))
    if run.show_settings:
        run.write(describe_settings(Path(files[0]), settings))
    return EXIT_ERROR if found.errors else EXIT_OK


def describe_settings(path: Path, settings: Settings) -> str:
    """The settings that hold for `path`, as `--show-settings` prints them (JSON values)."""
    from gradlint.runner import cache_directory, relative_to_root

    own = settings_for_file(settings, path)
    rules = own.codes_for(relative_to_root(path, own))
    values = {
        "root": str(own.root),
        "select": list(own.select),
        "extend-select": list(own.extend_select),
        "ignore": list(own.ignore),
        "exclude": list(own.exclude),
        "extend-exclude": list(own.extend_exclude),
        "per-file-ignores": {pattern: list(codes) for pattern, codes in own.per_file_ignores},
        "unsafe-fixes": own.unsafe_fixes,
        "cache-dir": str(cache_directory(own)),
        "respect-gitignore": own.respect_gitignore,
        "force-exclude": own.force_exclude,
        "fail-on": own.fail_on,
        "target-torch": own.target_torch,
        "rules": sorted(rules),
        "unfixable-rules": sorted(rules - own.fixable_codes()),
    }
    lines = [f"Resolved settings for: {path}", f"Settings path: {own.config_path or 'none (defaults)'}", ""]
    lines.extend(f"{key} = {json.dumps(value)}" for key, value in values.items())
    return "\n".join(lines) + "\n"


def _preset_options(command):
    """One flag per migration preset the rules declare (`--migrate-variable`, ..., `--migrate`)."""
    for name, codes in reversed(presets().items()):
        what = "every migration rule" if name == ALL_MIGRATIONS else f"the {name.split('-', 1)[1]} migration rules"
        help_text = f"Select {what} ({', '.join(codes)})."
        command = click.option(f"--{name}", "chosen_presets", flag_value=name, multiple=True, help=help_text)(command)
    return command


@cli.command(short_help="Lint files; --fix also applies the fixes.")
@_selection_options
@_preset_options
@click.option("--fix/--no-fix", "apply_fixes", default=False, help="Apply the fixes, then report what remains (as `gradlint fix`).")
@click.option(
    "--fix-only/--no-fix-only",
    default=False,
    help="Apply the fixes and report nothing of what remains: exit 0 unless --exit-non-zero-on-fix and a file changed (implies --fix).",
)
@click.option("--watch", is_flag=True, help="Check again whenever a checked file changes (Ctrl-C stops).")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` to every line with a finding, and report nothing.")
def check(paths, **options):
    """Lint PATHS (files or directories; default: the current directory; `-` reads stdin).

    With --fix (or --diff), apply the fixes as `gradlint fix` does and report what remains."""
    run = Invocation({"paths": paths, "report_file": None, **_renamed(options)})
    run.apply_fixes = run.apply_fixes or run.fix_only
    _refuse_conflicts(run)
    if run.apply_fixes or run.diff:
        run.run(lambda: _fix(run))

    def body() -> int:
        settings = run.settings(_chosen_select(run))
        shown = _show(run, settings)
        if shown is not None:
            return shown
        if run.add_noqa:
            return _add_noqa(_paths_or_here(paths), settings, run)
        if run.watch:
            return _watch(run)
        return _check_once(run, settings)

    run.run(body)


def _refuse_conflicts(run: "Invocation") -> None:
    fixing = "--fix-only" if run.fix_only else "--fix" if run.apply_fixes else "--diff" if run.diff else None
    if run.add_noqa and fixing:
        _fail(f"--add-noqa cannot be used with {fixing}")
    if run.watch and (fixing or run.add_noqa):
        _fail(f"--watch cannot be used with {fixing or '--add-noqa'}")
    if run.watch and _reads_stdin(run.paths, run.stdin_filename):
        _fail("--watch checks files and cannot be used with stdin (`-`)")


def _check_once(run: "Invocation", settings: Settings) -> int:
    """One `check` run without fixes: the findings reported, the exit code."""
    from gradlint.runner import check_paths, check_stdin

    stdin_sources = {}
    if _reads_stdin(run.paths, run.stdin_filename):
        raw, name = sys.stdin.buffer.read(), run.stdin_filename or "-"
        summary = check_stdin(raw, name, settings, max_bytes=run.max_file_size, respect_noqa=not run.ignore_noqa)
        stdin_sources[name] = _decoded_or_none(raw)
    else:
        summary = _run_with_progress(
            check_paths,
            _paths_or_here(run.paths),
            settings,
            jobs=run.jobs,
            use_cache=not run.no_cache,
            max_bytes=run.max_file_size,
            respect_noqa=not run.ignore_noqa,
            explain=run.verbose,
        )
        _warn_if_nothing_found(summary, run)
    _report_errors(summary, run)
    _print_findings(summary, run, settings, run.quiet, stdin_sources)
    return _exit_code(summary, run.exit_zero, settings)


def _watch(run: "Invocation") -> int:
    """`check --watch`: each run reads the configuration afresh; an error in it is shown and the
    watch goes on (the next change may repair it)."""

    def check_again() -> int:
        try:
            return _check_once(run, run.settings(_chosen_select(run), note=False))
        except ConfigError as error:
            click.echo(f"gradlint: error: {error}", err=True)
            return EXIT_ERROR

    watched = _paths_or_here(run.paths)

    def files() -> list[Path]:
        nonlocal watched
        try:
            watched = _watched_files(run)
        except ConfigError:
            pass  # the run reports it; the files watched before, the configuration among them, tell when it is repaired
        return watched

    from gradlint.watch import watch

    return watch(check_again, files, clear=run.output_file is None and sys.stdout.isatty())


def _watched_files(run: "Invocation") -> list[Path]:
    """What `--watch` polls: the files a run checks, the folders that hold them (a file added or
    removed changes its folder) and the configuration files that hold for them."""
    from gradlint.discovery import discover

    settings = run.settings(_chosen_select(run), note=False)
    files = discover(_paths_or_here(run.paths), settings).files
    configurations = {settings_for_file(settings, path).config_path for path in files} | {settings.config_path}
    folders = {path.parent for path in files} | {path for path in _paths_or_here(run.paths) if path.is_dir()}
    return [*files, *sorted(folders), *sorted(path for path in configurations if path is not None)]


def _renamed(options: dict) -> dict:
    """click's parameter names as the Invocation's (`--color` is a property there)."""
    options = dict(options)
    options["color_option"] = options.pop("color")
    return options


def _add_noqa(paths: list[Path], settings: Settings, run: Invocation) -> int:
    """`check --add-noqa`: suppress every remaining finding where it is, as ruff does."""
    from gradlint.runner import fix_paths

    if _reads_stdin(paths, run.stdin_filename):
        _fail("--add-noqa writes files and cannot be used with stdin (`-`)")
    if run.ignore_noqa:
        _fail("--add-noqa cannot be combined with --ignore-noqa")
    summary = _run_with_progress(
        fix_paths, paths, settings, diff=False, jobs=run.jobs, max_bytes=run.max_file_size, add_noqa=True, explain=run.verbose
    )
    _report_errors(summary, run)
    if not run.silent:
        click.echo(f"Added {summary.fixed} noqa directive{'s' if summary.fixed != 1 else ''}.", err=True)
    return EXIT_ERROR if summary.errors else EXIT_OK


@cli.command(short_help="Apply the fixes (--diff: show them).")
@_selection_options
@_preset_options
@click.option(
    "--report",
    "report_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write a migration report to this file: each change made and each legacy construct left, with what to decide "
    "(Markdown; JSON with `--output-format json` or a name ending in `.json`).",
)
def fix(paths, **options):
    """Apply fixes to PATHS (default: the current directory; `-` fixes stdin to stdout)."""
    run = Invocation({"paths": paths, "fix_only": False, "watch": False, **_renamed(options)})
    run.run(lambda: _fix(run))


def _chosen_select(run: Invocation) -> tuple[str, ...]:
    """`--select`, or the rules of the `--migrate...` presets given (which replace it)."""
    if run.chosen_presets:
        if run.select and not run.silent:
            given = " ".join(f"--{preset}" for preset in run.chosen_presets)
            click.echo(f"gradlint: warning: {given} selects its own rules; --select is not used (--extend-select adds rules)", err=True)
        return tuple(code for preset in run.chosen_presets for code in presets()[preset])
    return run.select


def _fix(run: Invocation) -> int:
    from gradlint.runner import fix_paths

    chosen_select = _chosen_select(run)
    settings = run.settings(chosen_select)
    shown = _show(run, settings)
    if shown is not None:
        return shown
    report = None
    if run.report_file is not None:
        report = MigrationReportRequest(run, settings)
        settings = run.settings(chosen_select, also=tuple(sorted(report.hidden)), note=False)
    if _reads_stdin(run.paths, run.stdin_filename):
        return _fix_stdin(settings, run, report)
    summary = _run_with_progress(
        fix_paths,
        _paths_or_here(run.paths),
        settings,
        diff=run.diff,
        jobs=run.jobs,
        max_bytes=run.max_file_size,
        respect_noqa=not run.ignore_noqa,
        explain=run.verbose,
        record_changes=report is not None,
    )
    _warn_if_nothing_found(summary, run)
    _report_errors(summary, run)
    written = report.write(summary) if report is not None else ""
    if run.diff:
        run.write("".join(summary.diffs))
        if not run.quiet:
            click.echo(f"Would fix {summary.fixed} error{'s' if summary.fixed != 1 else ''}.\n{written}", nl=False, err=True)
        return EXIT_ERROR if summary.errors else (EXIT_FINDINGS if summary.changed_files and not run.exit_zero else EXIT_OK)
    if run.fix_only:
        if not run.quiet:
            run.write(
                render_fixed_only(summary.fixed, summary.findings, settings.unsafe_fixes) + written,
                err=run.output_format not in HUMAN_FORMATS,
            )
        return _fix_only_exit_code(summary, run, bool(summary.changed_files))
    if summary.findings or run.output_format not in HUMAN_FORMATS:
        _print_findings(summary, run, settings, True)  # tools parse `[]` too
    if not run.quiet:
        text = render_fix_summary(
            summary.fixed,
            summary.findings,
            settings.unsafe_fixes,
            summary.changed_files,
            table=not run.statistics,
            unfixable=settings.codes() - settings.fixable_codes(),
            unwritten=summary.unwritten,
        )
        run.write(text + written, err=run.output_format not in HUMAN_FORMATS)
    if run.exit_non_zero_on_fix and summary.changed_files and not summary.errors:
        return EXIT_FINDINGS
    return _exit_code(summary, run.exit_zero, settings)


def _fix_only_exit_code(summary: RunSummary, run: Invocation, changed: bool) -> int:
    """`check --fix-only` exits as ruff's: what remains never fails the run; a change does with
    --exit-non-zero-on-fix (not with --exit-zero); a file that could not be read or written does."""
    if summary.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if run.exit_non_zero_on_fix and changed and not run.exit_zero else EXIT_OK


class MigrationReportRequest:
    """`fix --report FILE`: the files that fail to parse or decode are asked for (GL001, GL002)
    so that the report lists them as not migrated, but shown only there unless selected."""

    def __init__(self, run: Invocation, settings: Settings) -> None:
        from gradlint.discovery import CHECKED_SUFFIXES

        self.path: Path = run.report_file
        if self.path.name.endswith(CHECKED_SUFFIXES):
            raise ConfigError(f"--report {self.path}: a report cannot be written to a file gradlint checks")
        self.as_json = run.output_format == "json" or self.path.suffix.lower() == ".json"
        self.hidden = file_rule_codes() - settings.codes()
        self.written = not run.diff
        self.unsafe_fixes = settings.unsafe_fixes
        self.rules = tuple(settings.codes())

    def write(self, summary: RunSummary) -> str:
        """Write the report of `summary` (then drop the findings asked for the report alone from
        it); the line that ends the fix summary on the terminal."""
        from gradlint.report.migration import NOT_MIGRATED, migration_report
        from gradlint.report.migration_json import render_migration_json
        from gradlint.report.migration_markdown import render_migration_markdown

        report = migration_report(
            summary.changes, summary.findings, summary.errors, rules=self.rules, unsafe_fixes=self.unsafe_fixes, written=self.written
        )
        text = render_migration_json(report) if self.as_json else render_migration_markdown(report)
        try:
            write_output_atomic(self.path, text)
        except OSError as error:
            raise ConfigError(f"cannot write {self.path}: {describe_os_error(error)}") from None
        summary.findings = [finding for finding in summary.findings if finding.code not in self.hidden]
        failed = report.count(NOT_MIGRATED)
        left = f"{report.left} legacy construct{'s' if report.left != 1 else ''} left"
        if failed:
            left += f", {failed} file{'s' if failed != 1 else ''} not migrated"
        return f"{left}; migration report: {self.path}\n"


def _decoded_or_none(raw: bytes):
    try:
        return decode_source(raw)[0]
    except UndecodableSource:
        return None


def _fix_stdin(settings: Settings, run: Invocation, report: Optional["MigrationReportRequest"] = None) -> int:
    """Fixed source on stdout (or, with `--diff`, the diff only), what remains on stderr."""
    from gradlint.runner import RunSummary, fix_stdin, unified_diff

    name = run.stdin_filename or "-"
    raw = sys.stdin.buffer.read()
    result = fix_stdin(
        raw,
        name,
        settings,
        unsafe=settings.unsafe_fixes,
        max_bytes=run.max_file_size,
        respect_noqa=not run.ignore_noqa,
        record_changes=report is not None,
    )
    summary = RunSummary()
    summary.add(result)
    written = report.write(summary) if report is not None else ""
    fixed = result.fixed if result.fixed is not None else raw
    if isinstance(fixed, str):
        fixed = fixed.encode("utf-8", "surrogatepass")
    if run.diff:
        run.write(unified_diff(raw, fixed, name))
        _report_errors(summary, run)
        if written and not run.quiet:
            click.echo(written, nl=False, err=True)
        return EXIT_ERROR if summary.errors else (EXIT_FINDINGS if fixed != raw and not run.exit_zero else EXIT_OK)
    if run.stdout is None:
        sys.stdout.buffer.write(fixed)
        sys.stdout.flush()
    else:
        run.stdout.write(_decoded_or_none(fixed) or fixed.decode("utf-8", "replace"))
    _report_errors(summary, run)
    if run.fix_only:
        if written and not run.quiet:
            click.echo(written, nl=False, err=True)
        return _fix_only_exit_code(summary, run, fixed != raw)
    if summary.findings and not run.silent:
        options = RenderOptions(quiet=True, color=False, source_of=_source_reader({name: _decoded_or_none(fixed)}))
        click.echo(render(summary.findings, "concise", options), nl=False, err=True)
    if written and not run.quiet:
        click.echo(written, nl=False, err=True)
    if run.exit_non_zero_on_fix and fixed != raw and not summary.errors:
        return EXIT_FINDINGS
    return _exit_code(summary, run.exit_zero, settings)


@cli.command(short_help="List every rule, its severity and its fixes.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules(output_format):
    """List every rule: code, name, severity, fix availability."""
    rows = [_rule_row(rule) for rule in rule_infos()]
    if output_format == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    widths = {key: max(len(row[key]) for row in rows) for key in ("name", "severity", "fix")}
    for row in rows:
        columns = (row["code"], f"{row['name']:<{widths['name']}}", f"{row['severity']:<{widths['severity']}}")
        click.echo("  ".join(columns) + f"  fix: {row['fix']:<{widths['fix']}}  {row['summary']}")


@cli.command(short_help="Show a rule's documentation.")
@click.argument("rule_name", metavar="CODE|NAME", required=False)
@click.option("--all", "every_rule", is_flag=True, help="Show the documentation of every rule.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rule(rule_name, every_rule, output_format):
    """Print the documentation of a rule, named by code or name (`gradlint rule GL201`,
    `gradlint rule missing-zero-grad`), or of every rule with --all."""
    if every_rule == (rule_name is not None):  # both, or neither
        raise click.UsageError("give either a rule's code or name, or --all")
    if every_rule:
        chosen = list(rule_infos())
    else:
        found = _rule_named(rule_name)
        if found is None:
            _fail(f"unknown rule code or name `{rule_name}` (`gradlint rules` lists them)")
        chosen = [found]
    if output_format == "json":
        rows = [{**_rule_row(one), "explanation": one.documentation()} for one in chosen]
        click.echo(json.dumps(rows if every_rule else rows[0], indent=2))
        return
    click.echo("\n".join(render_rule(one) for one in chosen), nl=False)


def _rule_row(rule) -> dict:
    """A rule as `rules` and `rule` write it in JSON."""
    return {"code": rule.code, "name": rule.name, "severity": rule.severity.value, "summary": rule.summary, "fix": rule.fix_summary()}


def _rule_named(code_or_name: str):
    wanted = code_or_name.strip()
    return next((one for one in rule_infos() if one.code == wanted.upper() or one.name == wanted.lower()), None)


@cli.command(short_help="Remove the result caches.")
@click.option("-q", "--quiet", is_flag=True, help="Say nothing.")
def clean(quiet):
    """Remove the result cache of the current directory's configuration and every
    `.gradlint_cache` directory below the current directory."""

    def run() -> int:
        from gradlint.cache import remove_caches
        from gradlint.runner import cache_directory

        settings = load_settings(None, Overrides())
        try:
            removed = remove_caches(Path("."), cache_directory(settings))
        except OSError as error:
            raise ConfigError(f"cannot remove {error.filename}: {describe_os_error(error)}") from None
        for directory in removed:
            if not quiet:
                click.echo(f"Removing cache at: {directory}", err=True)
        return EXIT_OK

    sys.exit(_guarded(False, run))


@cli.command(short_help="Run the language server.")
def server():
    """Run the language server on stdin/stdout."""
    from gradlint.server import serve

    serve()


def main() -> None:
    handle_termination()
    tune_garbage_collector()
    try:
        try:
            cli(prog_name="gradlint")
        except KeyboardInterrupt as interrupt:  # outside a command's body: parsing the options, starting up
            exit_interrupted(interrupt)
    except InterruptedExit as done:
        end_process(done)
    except SystemExit:
        ignore_after_the_run()
        raise


if __name__ == "__main__":  # pragma: no cover
    main()
