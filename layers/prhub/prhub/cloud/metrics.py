"""Operator metrics as CloudWatch embedded metric format (EMF) lines on stdout, one helper for every count.

Emitted only where the stack names a namespace (POWERTOOLS_METRICS_NAMESPACE, which prhub.flow.deps reads and
hands to `configure`: nothing here reads the environment) and Powertools' own switches (POWERTOOLS_METRICS_DISABLED,
POWERTOOLS_DEV) leave metrics on: a local run prints no metric JSON. Powertools adds the `service` dimension
(POWERTOOLS_SERVICE_NAME) to each; the names are template.yaml's Mappings.Metrics.
"""
from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from aws_lambda_powertools.metrics import MetricUnit, single_metric  # loaded with Powertools' Logger anyway
from aws_lambda_powertools.metrics.functions import is_metrics_disabled

P = ParamSpec("P")
R = TypeVar("R")
# Powertools prints each metric with print(), which writes the line and its newline separately: the score
# worker's threads would interleave them, and CloudWatch drops a line that is not one JSON document.
_print_lock = threading.Lock()
# The process's namespace: one per stack, set once per process by prhub.flow.deps (configure). None: no metrics.
namespace: str | None = None


def configure(name: str | None) -> None:
    """Emit metrics under the namespace `name` from now on; None or "" emits none."""
    global namespace
    namespace = name or None


def count(name: str, value: float = 1, unit: str = "Count", **dimensions: str) -> None:
    """One metric data point, with the given dimensions besides `service` (`unit` a CloudWatch unit name)."""
    if not namespace:
        return
    # single_metric prints even when POWERTOOLS_METRICS_DISABLED is set; honour Powertools' switch here.
    if is_metrics_disabled():
        return
    with _print_lock, single_metric(name=name, unit=MetricUnit(unit), value=value, namespace=namespace) as metric:
        for key, dim in dimensions.items():
            metric.add_dimension(name=key, value=dim)


def timed(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator: the duration in seconds of each call that returns, as the metric `name`."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            started = time.monotonic()
            result = fn(*args, **kwargs)
            count(name, round(time.monotonic() - started, 3), "Seconds")
            return result

        return call

    return wrap
