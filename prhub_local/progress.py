"""What a local run is doing, on stderr: a live bar on a terminal, plain lines elsewhere (CI, cron, a pipe).

    Display(write, live, every=PLAIN_EVERY)   write: where lines go; live: redraw one bar in place
    display.update(stage, done=None, total=None, unit="")   the stage and its counts (listing, scoring, PR pages,
                                              rendering and publishing, copying the site)
    display.say(message)                      a line of its own (a warning, "report written: ..."), above the bar
    display.tick()                            redraw the bar's clock, or write the plain line that is due
    with display.ticking(): ...               tick() from a thread meanwhile (a stage that blocks, like listing)
    Display.for_stream(stream, quiet)         live when `stream` is a terminal; `quiet` keeps only warnings

A plain line is written when the stage changes or its count moves (at most one a second, the last count always),
and at most PLAIN_EVERY seconds after the one before while a stage goes on, so a log never goes silent longer.
When a stage ends (the next begins, or the display closes) it gets a last line with its final count and how long
it took, unless the line before said just that; a stage's first line has no time (it would always be "0 s").
"""
from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

PLAIN_EVERY = 10.0  # s: the longest a plain log goes without a line while work goes on
PLAIN_MIN = 1.0  # s between two lines for a moving count (its last value is always written)
LIVE_EVERY = 0.2  # s between redraws of the bar
BAR = 24  # characters of the bar
KEPT = ("warning", "prhub:")  # what --quiet still shows: warnings and failures


def _is_kept(message: str) -> bool:
    lowered = message.lower()
    return lowered.startswith(KEPT) or "failed" in lowered or "died" in lowered


@dataclass
class _State:
    stage: str = ""
    done: int | None = None
    total: int | None = None
    unit: str = ""
    since: float = 0.0  # when the stage began


class Display:
    """One run's progress, written through `write` (a line at a time; a live bar rewrites its line)."""

    def __init__(self, write: Callable[[str], None], live: bool = False, every: float = PLAIN_EVERY,
                 quiet: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self.write, self.live, self.every, self.quiet, self.clock = write, live, every, quiet, clock
        self.state = _State()
        self._last_line = clock()
        self._last_draw = 0.0
        self._shown = ""  # the line the live bar shows now ("" none)
        self._said: tuple[str, int | None, int | None] = ("", None, None)
        self._said_at = 0.0  # when the last progress line was written
        self._lock = threading.RLock()

    @classmethod
    def for_stream(cls, stream: TextIO | None = None, quiet: bool = False) -> Display:
        out = stream or sys.stderr

        def write(text: str) -> None:
            out.write(text)
            out.flush()

        live = not quiet and bool(getattr(out, "isatty", lambda: False)())
        return cls(write, live=live, quiet=quiet)

    # -- what the run tells ----------------------------------------------------------------------------------

    def update(self, stage: str, done: int | None = None, total: int | None = None, unit: str = "") -> None:
        with self._lock:
            now = self.clock()
            changed = stage != self.state.stage
            if changed:
                if not self.live and not self.quiet:
                    self._closing(now)
                self.state = _State(stage, done, total, unit, now)
            else:
                self.state.done, self.state.total, self.state.unit = done, total, unit
            if self.quiet:
                return
            finished = done is not None and done == total
            if self.live:
                self._draw(now, force=changed or finished)
                return
            moved = (stage, done, total) != self._said
            if changed or (moved and (finished or now - self._last_line >= PLAIN_MIN)):
                self._line(now)

    def say(self, message: str) -> None:
        with self._lock:
            if self.quiet and not _is_kept(message):
                return
            self._clear()
            self.write(message + "\n")
            self._last_line = self.clock()
            if self.live and self.state.stage:
                self._draw(self._last_line, force=True)

    def tick(self) -> None:
        with self._lock:
            if self.quiet or not self.state.stage:
                return
            now = self.clock()
            if self.live:
                self._draw(now)
            elif now - self._last_line >= self.every:
                self._line(now)

    def close(self) -> None:
        """End the bar's line (the terminal's next output starts on its own), or the last stage's plain lines."""
        with self._lock:
            if not self.live and not self.quiet:
                self._closing(self.clock())
            self._clear()
            self.state = _State()

    @contextmanager
    def ticking(self, interval: float = LIVE_EVERY) -> Iterator[Display]:
        stop = threading.Event()

        def loop() -> None:
            while not stop.wait(interval):
                self.tick()

        thread = threading.Thread(target=loop, daemon=True, name="progress")
        thread.start()
        try:
            yield self
        finally:
            stop.set()
            thread.join(timeout=2)
            self.close()

    # -- how it looks ----------------------------------------------------------------------------------------

    def text(self, now: float) -> str:
        """The stage as words: "scoring 12/40 PRs, 8 s" ("listing PRs, 3 s" without counts; no time before the
        stage's first half second)."""
        s = self.state
        count = ""
        if s.done is not None:
            count = f" {s.done:,}" + (f"/{s.total:,}" if s.total is not None else "") + (f" {s.unit}" if s.unit
                                                                                       else "")
        took = now - s.since
        return f"{s.stage}{':' if count else ''}{count}" + (f", {took:.0f} s" if took >= 0.5 else "")

    def _line(self, now: float) -> None:
        self.write(self.text(now) + "\n")
        self._last_line = self._said_at = now
        self._said = (self.state.stage, self.state.done, self.state.total)

    def _closing(self, now: float) -> None:
        """The ending stage's last line: its final count and time, unless the line before said just that."""
        s = self.state
        if s.stage and ((s.stage, s.done, s.total) != self._said or now - self._said_at >= PLAIN_MIN):
            self._line(now)

    def _draw(self, now: float, force: bool = False) -> None:
        if not force and now - self._last_draw < LIVE_EVERY:
            return
        s = self.state
        if s.total:
            filled = min(BAR, int(BAR * (s.done or 0) / s.total))
            bar = "[" + "#" * filled + "." * (BAR - filled) + "] "
        else:  # no total: a marker that moves with the clock says the run is alive
            at = int(now * 4) % BAR
            bar = "[" + "." * at + "#" + "." * (BAR - at - 1) + "] "
        self._shown = bar + self.text(now)
        self.write("\r" + self._shown + "\x1b[K")
        self._last_draw = now

    def _clear(self) -> None:
        if self.live and self._shown:
            self.write("\r\x1b[K")
            self._shown = ""


def lines(write: Callable[[str], None], quiet: bool = False) -> Display:
    """A plain display handing each line, without its newline, to `write` (a test's or a benchmark's list)."""

    def each(text: str) -> None:
        for line in text.splitlines():
            if line:
                write(line)

    return Display(each, quiet=quiet)
