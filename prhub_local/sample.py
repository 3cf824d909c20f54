"""The bundled sample (a fictional repository's week) and the watch list the local stack stores.

The sample belongs to the local harness: `prhub run` with no flags reports it,
and the tests plan it. It never ships in the Lambda layer.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from prhub.core.config import WatchList

SAMPLE_DIR = Path(__file__).parent / "sample"


def sample_settings() -> dict[str, Any]:
    """The bundled sample: its repository settings and its week."""
    doc = json.loads((SAMPLE_DIR / "sample.json").read_text(encoding="utf-8"))
    doc["config"]["source"] = "jsonl:" + str(SAMPLE_DIR / doc.pop("file"))
    return doc


def local_watchlist(template: dict[str, Any], config_text: str | None,
                    local_sources: dict[str, str] | None = None) -> str:
    """The watch list the local stack stores: --config's file as it is, or template.yaml's default plus the
    sample repo (what `prhub run` with no flags reports).

    `local_sources` (repo -> source spec) replaces the source of watched repositories that name none (the
    default, GitHub) with one this machine can read, e.g. an export file."""
    given = config_text is not None
    if config_text is None:
        config_text = str((template.get("Parameters") or {}).get("WatchedRepositories", {}).get("Default", "{}"))
    WatchList.parse(config_text if config_text.strip() else "{}")  # fail early, with the parser's message
    doc = json.loads(config_text) if config_text.strip() else {}
    sample = sample_settings()["config"]
    repos = doc.setdefault("repos", [])
    if not given and not any((r.get("repo") if isinstance(r, dict) else r) == sample["repo"] for r in repos):
        repos.append(sample)
    for i, entry in enumerate(repos):
        entry = {"repo": entry} if isinstance(entry, str) else entry
        if "source" not in entry and entry.get("repo") in (local_sources or {}):
            repos[i] = {**entry, "source": local_sources[entry["repo"]]}  # type: ignore[index]
    return json.dumps(doc, ensure_ascii=False)
