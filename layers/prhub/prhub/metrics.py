"""Operator metrics as CloudWatch embedded metric format (EMF) lines on stdout, one helper for every count.

Emitted only where the stack names a namespace (POWERTOOLS_METRICS_NAMESPACE) and Powertools' own switches
(POWERTOOLS_METRICS_DISABLED, POWERTOOLS_DEV) leave metrics on: a local run prints no metric JSON.
"""
from __future__ import annotations

import os


def count(name: str, value: float = 1, unit: str = "Count", **dimensions: str) -> None:
    """One metric data point, with the given dimensions (`unit` a CloudWatch unit name)."""
    # Imported on first use: the score worker's cold start must not pay for Powertools' metrics module.
    from aws_lambda_powertools.metrics import MetricUnit, single_metric
    from aws_lambda_powertools.metrics.functions import is_metrics_disabled

    namespace = os.environ.get("POWERTOOLS_METRICS_NAMESPACE")
    # single_metric prints even when POWERTOOLS_METRICS_DISABLED is set; honour Powertools' switch here.
    if not namespace or is_metrics_disabled():
        return
    with single_metric(name=name, unit=MetricUnit(unit), value=value, namespace=namespace) as metric:
        for key, dim in dimensions.items():
            metric.add_dimension(name=key, value=dim)
