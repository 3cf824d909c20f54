"""The local run's progress display (prhub_local.progress): a live bar on a terminal, plain lines at most 10 s apart
elsewhere, nothing but warnings and failures with --quiet (issue 25)."""
from __future__ import annotations

import io

from prhub_local.progress import PLAIN_EVERY, Display


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def plain(quiet: bool = False) -> tuple[Display, list[tuple[float, str]], Clock]:
    clock = Clock()
    written: list[tuple[float, str]] = []
    return Display(lambda text: written.append((clock.now, text)), quiet=quiet, clock=clock), written, clock


def test_a_long_stage_without_news_still_gets_a_line_at_most_ten_seconds_apart() -> None:
    display, written, clock = plain()
    display.update("building PR pages", 0, None, "done")
    for _ in range(95):  # 95 s of a stage whose count does not move, ticked as the runner's thread does
        clock.now += 1
        display.tick()
    times = [t for t, _ in written]
    assert len(times) >= 9
    assert max(b - a for a, b in zip(times, times[1:], strict=False)) <= PLAIN_EVERY
    assert written[-1][1].startswith("building PR pages: 0 done, 9") and written[-1][1].endswith(" s\n")


def test_a_moving_count_is_written_at_most_once_a_second_and_its_last_value_always() -> None:
    display, written, clock = plain()
    for done in range(0, 101):
        clock.now += 0.05  # 100 PRs in 5 s
        display.update("scoring", done, 100, "PRs")
    texts = [text for _, text in written]
    assert 5 <= len(texts) <= 8
    assert texts[0].startswith("scoring: 0/100 PRs") and texts[-1].startswith("scoring: 100/100 PRs")


def test_each_stage_change_is_a_line_of_its_own() -> None:
    display, written, _ = plain()
    display.update("listing acme/rocket's PRs")
    display.update("scoring", 0, 3, "PRs")
    display.update("rendering and publishing the report")
    assert [text.rstrip("\n").split(",")[0].split(":")[0] for _, text in written] == [
        "listing acme/rocket's PRs", "scoring", "rendering and publishing the report"]


def test_quiet_keeps_warnings_and_failures_only() -> None:
    display, written, clock = plain(quiet=True)
    display.update("scoring", 1, 3, "PRs")
    clock.now += 60
    display.tick()
    display.say("listed 32 PRs merged into acme/rocket")
    display.say("restored state from .prhub/state: tables 3")
    display.say("warning: the channel ops-room is not configured")
    display.say("ScoreFunction invocation failed: boom")
    assert [text for _, text in written] == ["warning: the channel ops-room is not configured\n",
                                             "ScoreFunction invocation failed: boom\n"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_one_bar_is_redrawn_in_place_and_messages_go_above_it() -> None:
    term = Terminal()
    display = Display.for_stream(term)
    assert display.live
    display.update("scoring", 5, 10, "PRs")
    display.say("warning: something")
    display.update("scoring", 10, 10, "PRs")
    display.close()
    out = term.getvalue()
    assert "\r[" + "#" * 12 + "." * 12 + "] scoring: 5/10 PRs" in out
    assert "\r\x1b[Kwarning: something\n" in out  # the bar cleared, the message on a line of its own
    assert "] scoring: 10/10 PRs" in out
    assert out.count("\n") == 1 and out.endswith("\r\x1b[K")  # the bar never scrolled; its line is cleared at the end


def test_a_pipe_gets_plain_lines_and_quiet_gets_no_bar() -> None:
    pipe = io.StringIO()
    display = Display.for_stream(pipe)
    display.update("scoring", 1, 2, "PRs")
    assert not display.live and pipe.getvalue().startswith("scoring: 1/2 PRs\n")
    term = Terminal()
    quiet = Display.for_stream(term, quiet=True)
    quiet.update("scoring", 1, 2, "PRs")
    quiet.tick()
    assert term.getvalue() == ""


def test_a_stage_that_ends_gets_a_line_with_its_last_count_and_how_long_it_took() -> None:
    # GIVEN stages whose counts move faster than a line a second, as PR pages do, then end (issue 46, item 12)
    display, written, clock = plain()
    display.update("building PR pages", 0, None, "done")
    for done in (4, 8, 12, 16, 20, 24, 28, 34):
        clock.now += 0.3
        display.update("building PR pages", done, None, "done")
    clock.now += 0.3
    display.update("telling the channels")
    clock.now += 2.0
    display.close()
    texts = [text.rstrip("\n") for _, text in written]
    # THEN the stage's first line has no time ("0 s" said nothing), its last count is written with its time,
    # and the last stage, closed, says how long it took
    assert texts[0] == "building PR pages: 0 done"
    assert texts[-3] == "building PR pages: 34 done, 2 s"
    assert texts[-2:] == ["telling the channels", "telling the channels, 2 s"]
    assert not [t for t in texts if t.endswith(", 0 s")]


def test_a_report_quicker_than_the_runners_look_is_still_said() -> None:
    # the e2e rerun of a cached week failed now and then: its report started and ended between two of the
    # runner's looks (LOOK_EVERY apart), so no "rendering and publishing the report" line was ever written
    from pathlib import Path
    from types import SimpleNamespace

    from prhub.cloud.runs import Progress

    from prhub_local.runner import Runner

    lines: list[str] = []
    runner = Runner(Path("."), SimpleNamespace(queues={}), None, Display(lines.append), workers=1)  # type: ignore
    runner.queued = lambda logical, sqs: 0  # type: ignore[method-assign]
    done = [Progress(done=32, failed=0, expected=32, revision=1)]
    runner._show(done, reported=True, sqs=None)  # no function is running: the report came and went
    assert any(line.startswith("rendering and publishing the report") for line in lines)
    said = len(lines)
    runner._show(done, reported=True, sqs=None)
    assert not any(line.startswith("rendering") for line in lines[said:])  # once
