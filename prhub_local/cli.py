"""`prhub`: weekly pull-request reports.

The command belongs to the local harness (it never ships in the Lambda layer).
Each subcommand is a short wrapper around a library function; its docstring is
its help text. Add one by writing `cmd_<name>(args)` and registering its parser
in `build_parser`.
"""
from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from prhub.core.errors import InputError, PrhubError, SourceError, SourceUnavailable


def cmd_run(args: argparse.Namespace) -> int:
    """Report a repository's merged PRs through the real serverless flow, on an embedded AWS.

    With no flags: the bundled sample (a fictional repository's week); with --config
    and no --repo: every repository the file watches. Channels in the file's
    `notify` are told (a literal url is accepted here, with a warning). Dates are
    inclusive, in --tz; without them, the last complete Monday-Sunday week.
    Progress (listing, scoring, the report, PR pages, copying the site) goes to stderr:
    a live bar on a terminal, a plain line at least every 10 s otherwise; --quiet keeps
    only warnings and failures. The run goes on while it moves (it gives up after 15
    minutes in which nothing finished), or until --timeout.
    Exit code 0 done, 2 bad input (nothing written), 3 another run holds --state,
    1 a failure of its own (the state is saved: scores already paid for are kept,
    and what was published is copied to --out).
    """
    from prhub_local import runner

    config_text = _read_config(args.config)
    result = runner.run_pipeline(
        repo=args.repo, since=args.since, until=args.until, tz=args.tz, source=args.source, scorer=args.scorer,
        lang=args.lang, out=args.out, state=None if args.endpoint_url else args.state,
        endpoint_url=args.endpoint_url, config_text=config_text, workers=args.workers, retry_model=args.retry_model,
        quiet=args.quiet, timeout=args.timeout, judgements=_read_judgements(args.judgements, args.repo))
    for key in result.report_keys or [result.report_key]:
        for name in ("report.md", "report.pdf", "report.json", "index.html"):
            print(result.site_dir / key / name)
    return 0


def _read_config(path: str | None) -> str | None:
    if not path:
        return None
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read --config {path}: {exc.strerror}") from exc


def _read_judgements(path: str | None, repo: str | None) -> list[dict[str, object]] | None:
    """--judgements FILE: one {"pr": N, "verdict": "key"|"minor"} a line, for --repo; checked whole before the
    run starts (its PR numbers by the plan, against the repository's record)."""
    if path is None:
        return None
    from prhub.core.config import check_repo
    from prhub.sources.judgements import read_lines

    if repo is None:
        raise InputError("--judgements is for one repository: give --repo")
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read --judgements {path}: {exc.strerror}") from exc
    return [{"pr": j.pr, "verdict": j.verdict} for j in read_lines(text.splitlines(), check_repo(repo), "file", path)]


def cmd_judge(args: argparse.Namespace) -> int:
    """Correct the verdicts on a repository's PRs: --key N... were key, --minor N... were minor.

    The corrections are kept in the stack's JudgementsTable (through --state, or
    --endpoint-url's stack) and beat every other source of judgements; each published
    report listing a corrected PR is made again as its next revision, which says what
    changed, and its PR pages mark the verdict. A PR no stored run lists is bad input:
    exit code 2, nothing written.
    """
    from prhub_local import judge

    made = judge.judge(args.repo, args.key, args.minor, state=None if args.endpoint_url else args.state,
                       endpoint_url=args.endpoint_url, config_text=_read_config(args.config), out=args.out)
    for revision in made:
        print(Path(args.out) / str(revision["report_key"]))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write a range's merged PRs from the GitHub API in the export format (one JSON per line) to stdout.

    Uses GITHUB_API_URL and GITHUB_TOKEN; dates are inclusive, in --tz. The
    output is what `prhub run --source jsonl:FILE` reads: snapshot once, report offline.
    """
    import math
    import os

    from prhub.core.config import check_repo
    from prhub.core.period import Period
    from prhub.sources import github, graphql

    period = Period.parse(args.since, args.until, args.tz)
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")  # titles are often Chinese, whatever the locale
    # GraphQL, as `--source github` reads: a review thread's resolution is known only there (REST serves
    # without a token or GraphQL endpoint), and it costs a request per 100 PRs, not several per PR.
    source = graphql.GraphQLSource.from_env(os.environ, max_wait=math.inf)
    count = github.export(check_repo(args.repo), period, sys.stdout, source)
    print(f"prhub: exported {count} PRs of {args.repo} merged {period.since}..{period.until} ({period.tz})",
          file=sys.stderr)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve a site directory on localhost, mapping /path/ to /path/index.html as CloudFront does."""
    from prhub_local import serve

    if not Path(args.directory).is_dir():
        raise InputError(f"{args.directory} is not a directory (run `prhub run` first)")
    try:
        serve.serve(args.directory, args.host, args.port)
    except OSError as exc:  # e.g. the port is taken: say so, without a traceback
        raise InputError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}") from exc
    return 0


def cmd_invoke(args: argparse.Namespace) -> int:
    """Run one function's handler with an event file on the embedded AWS and print its JSON answer.

    As `sam local invoke` would, without Docker: the stack comes from template.yaml and
    --state is restored and saved as for `prhub run`. A score or report event whose run
    the state lacks gets one first (PlanFunction plans the run the event names). Exit
    code 2 when PlanFunction refuses the event, 3 when another run holds --state,
    1 when a record or the handler failed, or a scheduled repository was not planned
    (recorded as a failed run, or left on PlanQueue to be retried).
    """
    import json

    from prhub_local import invoke

    config_text = _read_config(args.config)
    event = invoke.read_event(args.event)
    result = invoke.invoke_function(args.function, event, state=None if args.endpoint_url else args.state,
                                    endpoint_url=args.endpoint_url, source=args.source, config_text=config_text,
                                    out=args.out)
    print(json.dumps(result.answer, indent=2, ensure_ascii=False, default=str))
    if result.failures:
        print(f"prhub: {args.function} did not finish: {', '.join(result.failures)}", file=sys.stderr)
        return 2 if result.refused else 1
    return 0


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def build_parser() -> argparse.ArgumentParser:
    from prhub_local import FUNCTIONS

    parser = argparse.ArgumentParser(prog="prhub", description=(__doc__ or "").splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, func: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
        doc = func.__doc__ or ""
        sub = commands.add_parser(name, help=doc.splitlines()[0], description=doc,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        sub.set_defaults(func=func)
        return sub

    run = add("run", cmd_run)
    run.add_argument("--repo", metavar="OWNER/NAME", help="repository (default: the bundled sample)")
    run.add_argument("--since", metavar="DATE", help="first day, YYYY-MM-DD (inclusive)")
    run.add_argument("--until", metavar="DATE", help="last day, YYYY-MM-DD (inclusive)")
    run.add_argument("--tz", metavar="ZONE", help="IANA time zone of the dates (default: the repository's)")
    run.add_argument("--source", metavar="SPEC", help="github or jsonl:PATH (default: the repository's)")
    run.add_argument("--scorer", choices=("auto", "heuristic", "llm"), help="who scores the PRs (default: auto)")
    run.add_argument("--retry-model", action="store_true",
                     help="ask the model again for PRs the engine scored in its place in an earlier run")
    run.add_argument("--lang", choices=("zh", "en"), help="report language (default: the repository's, zh)")
    run.add_argument("--out", default="site", metavar="DIR", help="where the site is copied (default: ./site)")
    run.add_argument("--state", default=".prhub/state", metavar="DIR",
                     help="embedded AWS state kept between runs (default: .prhub/state)")
    run.add_argument("--endpoint-url", metavar="URL", help="use this AWS endpoint instead of the embedded one")
    run.add_argument("--config", metavar="FILE", help="watch list JSON (as in the deployed SSM parameter)")
    run.add_argument("--workers", type=_positive, default=4, metavar="N", help="score workers (default: 4)")
    run.add_argument("--quiet", action="store_true", help="no progress on stderr, only warnings and failures")
    run.add_argument("--timeout", type=_positive, metavar="SECONDS",
                     help="give up after this long (default: only when nothing moved for 15 minutes)")
    run.add_argument("--judgements", metavar="FILE",
                     help='verdicts on --repo\'s PRs, one {"pr": N, "verdict": "key"|"minor"} a line (kept)')

    judge_cmd = add("judge", cmd_judge)
    judge_cmd.add_argument("--repo", required=True, metavar="OWNER/NAME", help="repository")
    judge_cmd.add_argument("--key", type=_positive, nargs="+", default=[], metavar="N", help="PRs that were key")
    judge_cmd.add_argument("--minor", type=_positive, nargs="+", default=[], metavar="N", help="PRs that were minor")
    judge_cmd.add_argument("--config", metavar="FILE", help="watch list JSON (as in the deployed SSM parameter)")
    judge_cmd.add_argument("--out", default="site", metavar="DIR", help="where the site is copied (default: ./site)")
    judge_cmd.add_argument("--state", default=".prhub/state", metavar="DIR",
                           help="embedded AWS state kept between runs (default: .prhub/state)")
    judge_cmd.add_argument("--endpoint-url", metavar="URL", help="use this AWS endpoint instead of the embedded one")

    export = add("export", cmd_export)
    export.add_argument("--repo", required=True, metavar="OWNER/NAME", help="repository")
    export.add_argument("--since", required=True, metavar="DATE", help="first day, YYYY-MM-DD (inclusive)")
    export.add_argument("--until", required=True, metavar="DATE", help="last day, YYYY-MM-DD (inclusive)")
    export.add_argument("--tz", default="UTC", metavar="ZONE", help="IANA time zone of the dates (default: UTC)")

    invoke = add("invoke", cmd_invoke)
    invoke.add_argument("function", choices=FUNCTIONS, help="the function (its logical id in template.yaml)")
    invoke.add_argument("--event", required=True, metavar="FILE", help=(
        "event JSON, e.g. events/plan-scheduled.json, or the JSON itself ('{\"sweep\": true}')"))
    invoke.add_argument("--source", metavar="SPEC", help=(
        "github or jsonl:PATH, for the watched repositories that name no source (the sample events' "
        "verl-project/verl; default: as the watch list says, GitHub)"))
    invoke.add_argument("--config", metavar="FILE", help="watch list JSON (default: template.yaml's, with the sample)")
    invoke.add_argument("--out", default="site", metavar="DIR", help="where the site is copied (default: ./site)")
    invoke.add_argument("--state", default=".prhub/state", metavar="DIR",
                        help="embedded AWS state kept between runs (default: .prhub/state)")
    invoke.add_argument("--endpoint-url", metavar="URL", help="use this AWS endpoint instead of the embedded one")

    serve = add("serve", cmd_serve)
    serve.add_argument("directory", nargs="?", default="site", metavar="DIR", help="site directory (default: ./site)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000)")
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM (`timeout`, a container stop): stops the command as Ctrl-C does, so the state is saved on the way out
    instead of the process dying with only its journal written."""


def _terminated(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the save the first one started
    raise Terminated


def _file_in_the_way(args: argparse.Namespace) -> str:
    """Why --out or --state cannot be the folder it names (a file stands at it or above it), else "": said before
    the run, not as a traceback once the report is written."""
    for flag in ("out", "state"):
        if not (value := getattr(args, flag, None)):
            continue
        path = Path(value)
        for at in (path, *path.parents):
            if at.exists():
                if not at.is_dir():
                    return f"--{flag} {value}: {at} is a file, not a folder"
                break
    return ""


def _state_of(args: argparse.Namespace) -> Path | None:
    """The --state a command keeps (None: it keeps none, or runs on another endpoint's stack)."""
    state = getattr(args, "state", None)
    return Path(state) if state and not getattr(args, "endpoint_url", None) else None


def _stopped(how: str, args: argparse.Namespace, state: Path | None, saved_before: Path | None) -> str:
    """The line a stopped command ends with: whether its state was saved, and what the next run does with it."""
    from prhub_local.state import generation

    if state is None:
        return f"prhub: stopped by {how}"
    saved = generation(state)
    if saved is None or saved == saved_before:
        return f"prhub: stopped by {how} before anything was saved in {state}"
    again = " the same `prhub run` resumes the run" if args.command == "run" else " the next command starts from it"
    return f"prhub: stopped by {how}; the state is saved in {state}:{again}"


def main(argv: Sequence[str] | None = None) -> int:
    """Exit codes: 0 done, 2 bad input (nothing written), 3 the --state is busy, 1 a failure of its own,
    130 Ctrl-C and 143 SIGTERM (the state saved either way)."""
    from prhub_local.state import StateBusy, generation

    args = build_parser().parse_args(argv)
    if blocked := _file_in_the_way(args):
        print(f"prhub: {blocked}", file=sys.stderr)
        return 2
    main_thread = threading.current_thread() is threading.main_thread()  # only it may set a signal handler
    previous = signal.signal(signal.SIGTERM, _terminated) if main_thread else None
    state = _state_of(args)
    saved_before = generation(state) if state is not None else None
    try:
        return int(args.func(args))
    except Terminated:
        print(_stopped("SIGTERM", args, state, saved_before), file=sys.stderr)
        return 128 + signal.SIGTERM
    except SourceUnavailable as exc:  # not bad input: the same command may succeed once GitHub answers
        print(f"prhub: {exc}; try again when it answers", file=sys.stderr)
        return 1
    except (InputError, SourceError) as exc:
        print(f"prhub: {exc}", file=sys.stderr)
        return 2
    except StateBusy as exc:
        print(f"prhub: {exc}", file=sys.stderr)
        return 3
    except PrhubError as exc:
        print(f"prhub: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(_stopped("Ctrl-C", args, state, saved_before), file=sys.stderr)
        return 130
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)  # main() is also called in-process (tests)


if __name__ == "__main__":
    sys.exit(main())
