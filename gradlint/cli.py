"""The `gradlint` command line: check, fix, rules, rule."""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import NoReturn, Optional

import click

from gradlint import __version__
from gradlint.config import ConfigError, Overrides, Settings, load_settings, split_codes
from gradlint.docs import render_rule
from gradlint.files import SourceReadError, read_source
from gradlint.terminal import ProgressBar, use_color, wants_progress
from gradlint.report import FORMATS, HUMAN_FORMATS, RenderOptions, render, render_fix_summary, render_statistics
from gradlint.rules import ALL_MIGRATIONS, all_rules, presets, rule_by_code
from gradlint.source import UndecodableSource, decode_source
from gradlint.pool import tune_garbage_collector
from gradlint.runner import MAX_FILE_BYTES, RunSummary, check_paths, check_stdin, fix_paths, fix_stdin, unified_diff

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


def _selection_options(function):
    options = [
        click.argument(
            "paths", nargs=-1, type=click.Path(path_type=Path, allow_dash=True, readable=False)
        ),  # unreadable: reported per file
        click.option("--select", multiple=True, help="Rule codes or prefixes to enable (replaces the configured set)."),
        click.option("--extend-select", multiple=True, help="Rule codes or prefixes to enable in addition."),
        click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable."),
        click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False), help="Use this configuration file."),
        click.option("--output-format", type=click.Choice(sorted(FORMATS)), default="text", show_default=True),
        click.option("--statistics", is_flag=True, help="Show counts per rule instead of each finding."),
        click.option("--show-fixes", is_flag=True, help="Show each available fix as a diff under its finding (text format)."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain."),
        click.option(
            "--force-exclude/--no-force-exclude",
            default=None,
            help="Apply exclude and extend-exclude to files named on the command line too.",
        ),
        click.option("--no-cache", is_flag=True, help="Do not read or write the result cache."),
        click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes (0: one per core)."),
        click.option("--stdin-filename", default=None, help="The file name to report for source read from `-`."),
        click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary."),
        click.option("-v", "--verbose", is_flag=True, help="Show tracebacks of internal errors."),
        click.option(
            "--max-file-size",
            type=FileSize(),
            default=MAX_FILE_BYTES,
            show_default="2M",
            help="Larger files are only decoded and compiled, not analysed (a warning names them); 0: no limit.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gradlint")
def cli() -> None:
    """gradlint: find autograd mistakes in PyTorch training code and migrate legacy APIs."""


def _settings(config_file, select, extend_select, ignore, force_exclude, unsafe_fixes=None) -> Settings:
    overrides = Overrides(
        select=split_codes(select) if select else None,
        extend_select=split_codes(extend_select),
        ignore=split_codes(ignore),
        unsafe_fixes=unsafe_fixes,
        force_exclude=force_exclude,
    )
    return load_settings(config_file, overrides)


def _fail(message: str) -> NoReturn:
    click.echo(f"gradlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _report_errors(summary: RunSummary) -> None:
    for path, reason in summary.warnings:
        click.echo(f"gradlint: warning: {path}: {reason}", err=True)
    for path, reason in summary.errors:
        click.echo(f"gradlint: error: {path}: {reason}", err=True)


def _print_findings(summary: RunSummary, output_format: str, statistics: bool, quiet: bool, show_fixes: bool, stdin_sources=None) -> None:
    if statistics:
        click.echo(render_statistics(summary.findings, output_format), nl=False)
        return
    if output_format in HUMAN_FORMATS and not summary.findings and summary.errors:
        return  # the errors are the whole story: "All checks passed!" would contradict them
    problems = tuple((path, reason, "error") for path, reason in summary.errors) + tuple(
        (path, reason, "warning") for path, reason in summary.warnings
    )
    options = RenderOptions(
        quiet=quiet, color=use_color(), show_fixes=show_fixes, source_of=_source_reader(stdin_sources or {}), problems=problems
    )
    click.echo(render(summary.findings, output_format, options), nl=False, color=options.color)


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


def _exit_code(summary: RunSummary, exit_zero: bool) -> int:
    if summary.errors:
        return EXIT_ERROR
    if summary.findings and not exit_zero:
        return EXIT_FINDINGS
    return EXIT_OK


def _guarded(verbose: bool, action):
    """Run a command body; configuration errors exit 2 with one line, never a traceback."""
    try:
        return action()
    except ConfigError as error:
        _fail(str(error))
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as error:  # last line of defence: one line, traceback only with --verbose
        if verbose:
            traceback.print_exc()
        _fail(f"internal error: {type(error).__name__}: {error}")


@cli.command()
@_selection_options
def check(
    paths,
    select,
    extend_select,
    ignore,
    config_file,
    output_format,
    statistics,
    show_fixes,
    exit_zero,
    force_exclude,
    no_cache,
    jobs,
    stdin_filename,
    quiet,
    verbose,
    max_file_size,
):
    """Lint PATHS (files or directories; default: the current directory; `-` reads stdin)."""

    def run() -> int:
        settings = _settings(config_file, select, extend_select, ignore, force_exclude)
        stdin_sources = {}
        if any(str(path) == "-" for path in paths):
            raw, name = sys.stdin.buffer.read(), stdin_filename or "-"
            summary = check_stdin(raw, name, settings, max_bytes=max_file_size)
            stdin_sources[name] = _decoded_or_none(raw)
        else:
            summary = _run_with_progress(
                check_paths, list(paths) or [Path(".")], settings, jobs=jobs, use_cache=not no_cache, max_bytes=max_file_size
            )
        _report_errors(summary)
        _print_findings(summary, output_format, statistics, quiet, show_fixes, stdin_sources)
        return _exit_code(summary, exit_zero)

    sys.exit(_guarded(verbose, run))


def _preset_options(command):
    """One flag per migration preset the rules declare (`--migrate-variable`, ..., `--migrate`)."""
    for name, codes in reversed(presets().items()):
        what = "every migration rule" if name == ALL_MIGRATIONS else f"the {name.split('-', 1)[1]} migration rules"
        help_text = f"Select {what} ({', '.join(codes)})."
        command = click.option(f"--{name}", "chosen_presets", flag_value=name, multiple=True, help=help_text)(command)
    return command


@cli.command()
@_selection_options
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Also apply fixes that may change behaviour.")
@click.option("--diff", is_flag=True, help="Print a unified diff of the fixes and write nothing.")
@_preset_options
def fix(
    paths,
    select,
    extend_select,
    ignore,
    config_file,
    output_format,
    statistics,
    show_fixes,
    exit_zero,
    force_exclude,
    no_cache,
    jobs,
    stdin_filename,
    quiet,
    verbose,
    max_file_size,
    unsafe_fixes,
    diff,
    chosen_presets,
):
    """Apply fixes to PATHS (default: the current directory; `-` fixes stdin to stdout)."""

    def run() -> int:
        chosen_select = select
        if chosen_presets:
            chosen_select = tuple(code for preset in chosen_presets for code in presets()[preset])
        settings = _settings(config_file, chosen_select, extend_select, ignore, force_exclude, unsafe_fixes)
        if any(str(path) == "-" for path in paths):
            return _fix_stdin(settings, stdin_filename or "-", exit_zero, max_file_size, diff=diff)
        summary = _run_with_progress(fix_paths, list(paths) or [Path(".")], settings, diff=diff, jobs=jobs, max_bytes=max_file_size)
        _report_errors(summary)
        if diff:
            click.echo("".join(summary.diffs), nl=False)
            if not quiet:
                click.echo(f"Would fix {summary.fixed} error{'s' if summary.fixed != 1 else ''}.", err=True)
            return EXIT_ERROR if summary.errors else (EXIT_FINDINGS if summary.changed_files else EXIT_OK)
        if summary.findings or output_format not in HUMAN_FORMATS:
            _print_findings(summary, output_format, statistics, True, show_fixes)  # tools parse `[]` too
        if not quiet:
            text = render_fix_summary(summary.fixed, summary.findings, settings.unsafe_fixes, summary.changed_files)
            click.echo(text, nl=False, err=output_format not in HUMAN_FORMATS)
        return _exit_code(summary, exit_zero)

    sys.exit(_guarded(verbose, run))


def _decoded_or_none(raw: bytes):
    try:
        return decode_source(raw)[0]
    except UndecodableSource:
        return None


def _fix_stdin(settings: Settings, name: str, exit_zero: bool, max_bytes: int, *, diff: bool) -> int:
    """Fixed source on stdout (or, with `--diff`, the diff only), what remains on stderr."""
    raw = sys.stdin.buffer.read()
    result = fix_stdin(raw, name, settings, unsafe=settings.unsafe_fixes, max_bytes=max_bytes)
    summary = RunSummary()
    summary.add(result)
    fixed = result.fixed if result.fixed is not None else raw
    if isinstance(fixed, str):
        fixed = fixed.encode("utf-8", "surrogatepass")
    if diff:
        click.echo(unified_diff(raw, fixed, name), nl=False)
        _report_errors(summary)
        return EXIT_ERROR if summary.errors else (EXIT_FINDINGS if fixed != raw else EXIT_OK)
    sys.stdout.buffer.write(fixed)
    sys.stdout.flush()
    _report_errors(summary)
    if summary.findings:
        options = RenderOptions(color=False, source_of=_source_reader({name: _decoded_or_none(fixed)}))
        click.echo(render(summary.findings, "concise", options), nl=False, err=True)
    return _exit_code(summary, exit_zero)


@cli.command()
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules(output_format):
    """List every rule: code, name, fix availability."""
    rows = [
        {"code": rule.code, "name": rule.name, "severity": rule.severity.value, "summary": rule.summary, "fix": rule.fix_summary()}
        for rule in all_rules()
    ]
    if output_format == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        click.echo(f"{row['code']}  {row['name']:<28} fix: {row['fix']:<9} {row['summary']}")


@cli.command()
@click.argument("code")
def rule(code):
    """Print the documentation of one rule (e.g. `gradlint rule GL101`)."""
    try:
        found = rule_by_code(code.upper())
    except KeyError:
        _fail(f"unknown rule code `{code}`")
    click.echo(render_rule(found), nl=False)


@cli.command()
def server():
    """Run the language server on stdin/stdout (needs pygls: the `lsp` extra)."""
    try:
        from gradlint.server import serve
    except ImportError as error:
        _fail(f"the language server needs pygls (the `lsp` extra: pip install 'pygls>=2,<3'): {error}")
    serve()


def main() -> None:
    tune_garbage_collector()
    cli(prog_name="gradlint")


if __name__ == "__main__":  # pragma: no cover
    main()
