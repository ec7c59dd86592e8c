"""Where in a program each invoke and each ``apply`` callback came from, so an error raised inside an SDK (a missing
mock, an ``apply`` on a value the mocks left out) names the program's line.

An invoke reaches the mocks on a worker thread and an ``apply`` callback runs later on the event loop: neither has
the program's frames on its stack when it fails. While a plan runs (:func:`recording`), each call of the SDK's invoke
functions (``pulumi.runtime.invoke``, ``invoke_output``, ``invoke_async``, ``invoke_single``,
``invoke_output_single``, ``call``: what every provider SDK's generated functions and methods call) and of
``pulumi.Output.apply`` (which ``Output``'s attribute lifting, ``output.a.b``, calls) records the calling frames in
the context the SDK's tasks copy (:data:`CALL_SITE`); an ``apply`` callback that raises, and a missing mock, leave
that record on the exception (:func:`mark`, read by :func:`call_site_of`).

Outside a plan the wrappers only call through. Only frames outside installed packages, the standard library and this
package are kept (the program's own), outermost first.
"""

from __future__ import annotations

import contextvars
import functools
import sys
import sysconfig
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import pulumi
import pulumi.runtime

__all__ = ["CALL_SITE", "call_site_of", "mark", "recording"]

Frames = tuple[tuple[str, int], ...]
"""(file, line) of each frame, outermost first."""

CALL_SITE: contextvars.ContextVar[Frames] = contextvars.ContextVar("gpu_components_plan_call_site", default=())
"""The program frames of the calls that led to the code running now: the invoke or ``apply`` being served and, for a
callback, the calls that made its ``apply``."""

_ACTIVE: contextvars.ContextVar[bool] = contextvars.ContextVar("gpu_components_plan_recording", default=False)
_ATTRIBUTE = "_gpu_components_call_site"
_INVOKES = ("invoke", "invoke_output", "invoke_async", "invoke_single", "invoke_output_single", "call")
_STDLIB = tuple(
    str(Path(path).resolve()) for path in {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}
)
_INSTALLED = ("site-packages", "dist-packages")
_PACKAGE = str(Path(__file__).resolve().parent.parent) + "/"
"""This package's directory: its frames are never the program's."""
_LOCK = threading.Lock()
_installed = False

F = TypeVar("F", bound=Callable[..., Any])


def _kept(filename: str) -> bool:
    """Whether a frame may be the program's: an absolute file outside installed packages, the standard library and
    this package."""
    if not filename.startswith("/") or any(part in filename for part in _INSTALLED):
        return False
    return not filename.startswith((*_STDLIB, _PACKAGE))


def _here() -> Frames:
    """The kept frames calling the SDK now, after those recorded for the code running now."""
    frames: list[tuple[str, int]] = []
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        if _kept(frame.f_code.co_filename):
            frames.append((frame.f_code.co_filename, frame.f_lineno))
        frame = frame.f_back
    return CALL_SITE.get() + tuple(reversed(frames)) if frames else CALL_SITE.get()


def mark(error: BaseException, frames: Frames | None = None) -> None:
    """Leave ``frames`` (default: :data:`CALL_SITE`) on ``error``, unless it carries some already."""
    if getattr(error, _ATTRIBUTE, None) is None:
        setattr(error, _ATTRIBUTE, CALL_SITE.get() if frames is None else frames)


def call_site_of(error: BaseException) -> Frames:
    """The frames left on ``error`` or on an exception it was raised from or while handling, else ``()``."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        frames = getattr(current, _ATTRIBUTE, None)
        if frames:
            return tuple(frames)
        pending += [current.__cause__, current.__context__]
    return ()


def _recorded(original: F) -> F:
    """``original`` (an SDK invoke function) run with its caller's frames in :data:`CALL_SITE`."""

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not _ACTIVE.get():
            return original(*args, **kwargs)
        token = CALL_SITE.set(_here())
        try:
            return original(*args, **kwargs)
        finally:
            CALL_SITE.reset(token)

    return wrapper  # type: ignore[return-value]


def _recorded_apply(original: Callable[..., Any]) -> Callable[..., Any]:
    """``Output.apply`` whose callback runs with the frames that called ``apply`` and marks what it raises."""

    @functools.wraps(original)
    def apply(self: Any, func: Callable[[Any], Any], *args: Any, **kwargs: Any) -> Any:
        if not _ACTIVE.get():
            return original(self, func, *args, **kwargs)
        frames = _here()

        def callback(value: Any) -> Any:
            token = CALL_SITE.set(frames)
            try:
                return func(value)
            except Exception as error:
                mark(error, frames)
                raise
            finally:
                CALL_SITE.reset(token)

        return original(self, callback, *args, **kwargs)

    return apply


def _install() -> None:
    """Wrap the SDK's invoke functions and ``Output.apply`` once per process (they call through outside a plan)."""
    global _installed
    with _LOCK:
        if _installed:
            return
        for name in _INVOKES:
            setattr(pulumi.runtime, name, _recorded(getattr(pulumi.runtime, name)))
        pulumi.Output.apply = _recorded_apply(pulumi.Output.apply)  # type: ignore[method-assign]
        _installed = True


@contextmanager
def recording() -> Iterator[None]:
    """Record call sites in the current context (one plan run's) until the block ends."""
    _install()
    token = _ACTIVE.set(True)
    try:
        yield
    finally:
        _ACTIVE.reset(token)
