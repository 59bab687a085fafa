"""Progress of long calls, reported through Python on the calling thread.

The C++ layer hands the latest figures to a reporter every 50 ms or so, on the thread that made
the call; here they get a rate and the time left, and go to the user's callable or become lines
on ``sys.stderr`` (looked up at each line, so that ``contextlib.redirect_stderr``, notebooks and
logging setups that replace it see them).
"""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Callable, Iterator, NamedTuple, Optional, Union


class Progress(NamedTuple):
    """How far a long call has come, as ``progress=callable`` receives it.

    ``phase`` is ``"pre-tokenizing"`` (reading and counting files; bytes as stored, so
    compressed bytes for compressed files), ``"counting"`` (documents from an iterator),
    ``"merging"``, ``"encoding"`` or a report's ``"grouping"`` (reading JSON Lines for
    the values of ``group_by``); ``done`` of ``total`` ``unit``\\ s (``"bytes"``,
    ``"merges"``, or ``"pre-tokens"`` for a report's encoding of the distinct pre-tokens;
    ``total`` is None where it is not known, as for an iterator); ``documents`` seen so far (0
    where not counted); ``rate`` in units per second since the phase began; ``seconds_left`` at
    that rate (None without a total).
    """

    phase: str
    done: int
    total: Optional[int]
    unit: str
    documents: int
    rate: float
    seconds_left: Optional[float]


ProgressOption = Union[bool, Callable[[Progress], object], None]


def reporter(progress: ProgressOption) -> Optional[_Tracker]:
    """What the C++ layer reports to for ``progress=``: None for False or None, lines on
    sys.stderr for True, the callable's own for a callable."""
    if progress is None or progress is False:
        return None
    if progress is True:
        return _Tracker(_Printer())
    if callable(progress):
        return _Tracker(progress)
    raise TypeError(
        f"progress must be a bool or a callable taking a bpeforge.Progress, not "
        f"{type(progress).__name__}"
    )


@contextlib.contextmanager
def reporting(progress: ProgressOption) -> Iterator[Optional[_Tracker]]:
    """``reporter(progress)``, closed (its terminal line ended) when the call is over."""
    tracker = reporter(progress)
    try:
        yield tracker
    finally:
        if tracker is not None:
            tracker.close()


class _Tracker:
    """Figures from the C++ layer made into Progress: the rate since the phase began."""

    def __init__(self, sink: Callable[[Progress], object]) -> None:
        self._sink = sink
        self._phase = ""
        self._since = time.monotonic()  # when the phase began: the last report of the one before
        self._last = self._since

    def __call__(self, phase: str, done: int, total: int, unit: str, documents: int) -> None:
        now = time.monotonic()
        if phase != self._phase:
            if self._phase:
                self._since = self._last
            self._phase = phase
        self._last = now
        elapsed = now - self._since
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if total and rate > 0 else None
        self._sink(Progress(phase, done, total or None, unit, documents, rate, left))

    def close(self) -> None:
        close = getattr(self._sink, "close", None)
        if close is not None:
            close()


class _Printer:
    """Progress lines on sys.stderr: rewritten in place on a terminal (five a second at most),
    else plain lines, one every few seconds and one at each new phase."""

    def __init__(self) -> None:
        self._phase = ""
        self._printed = 0.0
        self._open = None  # the terminal stream whose line is not ended yet

    def __call__(self, p: Progress) -> None:
        stream = sys.stderr
        if stream is None:
            return
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError, OSError):
            tty = False
        now = time.monotonic()
        if p.phase == self._phase and now - self._printed < (0.2 if tty else 5.0):
            return
        self._phase, self._printed = p.phase, now
        if tty:
            stream.write("\r" + describe(p) + "\x1b[K")
            self._open = stream
        else:
            self._end_line()
            stream.write(describe(p) + "\n")
        stream.flush()

    def _end_line(self) -> None:
        if self._open is not None:
            self._open.write("\n")
            self._open.flush()
            self._open = None

    def close(self) -> None:
        self._end_line()


def describe(p: Progress) -> str:
    """``"merging: 12,000 of 31,743 merges, 5,400 merges/s, 4 s left"``."""
    if p.unit == "bytes":
        amount = f"{p.done / 1e6:,.1f} MB"
        if p.total:
            amount = f"{100 * p.done / p.total:.0f}% of {p.total / 1e6:,.1f} MB"
        rate = f"{p.rate / 1e6:,.1f} MB/s"
    else:
        amount = f"{p.done:,} {p.unit}" if not p.total else f"{p.done:,} of {p.total:,} {p.unit}"
        rate = f"{p.rate:,.0f} {p.unit}/s"
    parts = [f"{p.phase}: {amount}"]
    if p.documents > 1:
        parts.append(f"{p.documents:,} documents")
    if p.rate > 0:
        parts.append(rate)
    if p.seconds_left is not None:
        parts.append(f"{_duration(p.seconds_left)} left")
    return ", ".join(parts)


def _duration(seconds: float) -> str:
    seconds = int(round(max(seconds, 0)))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
