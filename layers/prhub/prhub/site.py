"""The static site in the bucket (placeholder: the reports issue completes it).

Contract:
    publish_report(s3, bucket, report, files) -> list[str]   writes <owner>/<repo>/reports/<slug>/<file>; returns keys
    rebuild_indexes(s3, bucket, repo) -> list[str]           repo index.html, feed.xml, root index.html
    invalidate(cloudfront, distribution_id, paths) -> None    no-op without a distribution
    serve(directory, host, port) -> None                      localhost server with CloudFront's /path/ -> /path/index.html
"""
from __future__ import annotations

from typing import Any

from prhub.period import Period

TYPES = {".html": "text/html; charset=utf-8", ".md": "text/markdown; charset=utf-8",
         ".pdf": "application/pdf", ".json": "application/json", ".xml": "application/atom+xml"}


def report_prefix(report: dict[str, Any]) -> str:
    period = Period.from_dict(report["period"])
    return f"{report['repo']}/reports/{period.slug}/"


def publish_report(s3: Any, bucket: str, report: dict[str, Any], files: dict[str, bytes]) -> list[str]:
    prefix = report_prefix(report)
    keys = []
    for name, body in files.items():
        ext = name[name.rfind("."):]
        s3.put_object(Bucket=bucket, Key=prefix + name, Body=body, ContentType=TYPES.get(ext, "application/octet-stream"))
        keys.append(prefix + name)
    return keys


def rebuild_indexes(s3: Any, bucket: str, repo: str) -> list[str]:
    return []


def invalidate(cloudfront: Any, distribution_id: str, paths: list[str]) -> None:
    return None
