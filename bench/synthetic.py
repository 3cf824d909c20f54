"""Seeded generator of fictional merged PRs in the export format (../shared/data/README.md).

The shape follows what a busy ML repository merges (sizes from verl's history:
median 2 files and ~20 added lines, a long tail to hundreds of files; titles
`[modules] type: description`, now and then `[BREAKING]` or a revert), but every
name, title and body is made up: nothing from the real export is copied.

    python -m bench.synthetic 10000 --out /tmp/synthetic.jsonl
"""
from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = "example-org/example"
MODULES = ["fsdp", "megatron", "sglang", "vllm", "rollout", "trainer", "ci", "recipe", "worker", "perf", "model",
           "algo", "ckpt", "doc", "data", "cfg", "reward", "tool", "ray", "hardware"]
TYPES = ["fix"] * 45 + ["feat"] * 33 + ["chore"] * 10 + ["refactor"] * 5 + ["docs"] * 3 + ["test"] * 2 + ["perf"] * 2
VERBS = ["support", "fix", "add", "remove", "refactor", "speed up", "guard", "document", "unify", "cache", "rename",
         "validate", "batch", "stream", "retry"]
OBJECTS = ["rollout weights sync", "checkpoint loading", "sequence packing", "reward manager", "tensor parallel init",
           "dynamic batching", "config defaults", "CI matrix", "tokenizer padding", "LoRA adapters", "async trainer",
           "log-prob computation", "KV cache offload", "dataset shuffling", "gradient clipping", "NPU kernels",
           "multi-turn tool calls", "resharding", "metrics logging", "docker image"]
DIRS = {
    "fsdp": "src/example/workers/fsdp", "megatron": "src/example/workers/megatron",
    "sglang": "src/example/rollout/sglang",
    "vllm": "src/example/rollout/vllm", "rollout": "src/example/rollout", "trainer": "src/example/trainer",
    "ci": ".github/workflows", "recipe": "recipe", "worker": "src/example/workers", "perf": "src/example/utils",
    "model": "src/example/models", "algo": "src/example/algorithms", "ckpt": "src/example/checkpoint",
    "doc": "docs", "data": "src/example/data", "cfg": "src/example/config", "reward": "src/example/reward",
    "tool": "src/example/tools", "ray": "src/example/single_controller", "hardware": "src/example/device",
}
STEMS = ["core", "utils", "engine", "worker", "config", "loader", "manager", "runner", "ops", "patch", "state", "io"]


def _lognormal_int(rng: random.Random, median: float, sigma: float, low: int, high: int) -> int:
    return max(low, min(high, int(round(rng.lognormvariate(math.log(median), sigma)))))


# Bumped when the generated rows change, so caches of derived data are rebuilt.
VERSION = 2
IDENTIFIERS = 4000  # real titles name specific things (`compute_log_prob`, Qwen2.5-VL): a long tail of terms


def _title(rng: random.Random, mods: list[str], kind: str, breaking: bool) -> str:
    prefix = ("[BREAKING]" if breaking else "") + f"[{', '.join(mods)}]"
    title = f"{prefix} {kind}: {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
    if rng.random() < 0.7:
        ident = min(IDENTIFIERS - 1, int(rng.paretovariate(1.1)) - 1)  # a few names recur, most are rare
        title += f" in {rng.choice(STEMS)}_{ident}_{rng.choice(['fn', 'cfg', 'op', 'model'])}"
    return title


def _body(rng: random.Random, title: str, refs: list[int], size: int) -> str:
    parts = ["### What does this PR do?", "", f"This change is about: {title.split(':', 1)[-1].strip()}."]
    if refs:
        parts.append("Related: " + ", ".join(f"#{r}" for r in refs))
    parts += ["", "### Test", "", rng.choice(["Added unit tests.", "Ran the e2e suite locally.", "Not tested: docs."]),
              "", "### Design & Code Changes", ""]
    filler = "- adjust the implementation and keep the old behaviour behind a flag\n"
    body = "\n".join(parts) + "\n"
    return body + filler * max(0, (size - len(body)) // len(filler))


def _files(rng: random.Random, mods: list[str], count: int, additions: int, deletions: int) -> list[dict[str, Any]]:
    paths: list[str] = []
    seen: set[str] = set()
    while len(paths) < count:
        roll = rng.random()
        if roll < 0.18:
            path = f"tests/{rng.choice(mods)}/test_{rng.choice(STEMS)}_{len(paths)}.py"
        elif roll < 0.26:
            path = f"docs/{rng.choice(mods)}/{rng.choice(STEMS)}.md"
        elif roll < 0.30:
            path = rng.choice(["requirements.txt", "setup.py", "pyproject.toml", ".github/workflows/ci.yml"])
        else:
            path = f"{DIRS[rng.choice(mods)]}/{rng.choice(STEMS)}{'' if roll < 0.8 else '_' + str(len(paths))}.py"
        if path not in seen:
            seen.add(path)
            paths.append(path)
    # Split the totals across files so that they add up exactly, as in a real export.
    weights = [rng.random() + 0.05 for _ in paths]
    total = sum(weights)
    adds = [int(additions * w / total) for w in weights]
    dels = [int(deletions * w / total) for w in weights]
    adds[0] += additions - sum(adds)
    dels[0] += deletions - sum(dels)
    rows = []
    for path, a, d in zip(paths, adds, dels, strict=True):
        status = "added" if d == 0 and a > 0 and rng.random() < 0.5 else "modified"
        rows.append({"filename": path, "status": status, "additions": a, "deletions": d, "changes": a + d})
    return rows


def generate(n: int, seed: int = 7, since: date = date(2026, 1, 5), days: int = 28, repo: str = REPO,
             first_number: int = 1000, tz_offset_hours: int = 8) -> Iterator[dict[str, Any]]:
    """`n` export rows merged within `days` days from `since` (local time at UTC+`tz_offset_hours`).

    Numbers are unique and increase with merge time; the same arguments give the same rows.
    """
    rng = random.Random(seed)
    start = datetime.combine(since, datetime.min.time(), UTC) - timedelta(hours=tz_offset_hours)
    span = days * 86400 - 1
    moments = sorted(rng.randrange(span) for _ in range(n))
    authors = [f"dev{i:04d}" for i in range(max(5, min(700, n // 4)))]
    titles: list[tuple[int, str]] = []
    for i, offset in enumerate(moments):
        number = first_number + i * 2 + rng.randrange(2)  # gaps, as issues share the numbering
        mods = rng.sample(MODULES, 1 if rng.random() < 0.75 else rng.randint(2, 3))
        kind = rng.choice(TYPES)
        breaking = rng.random() < 0.02
        title = _title(rng, mods, kind, breaking)
        if titles and rng.random() < 0.01:
            reverted = rng.choice(titles[-50:])
            title = f'Revert "{reverted[1]}"'
            refs = [reverted[0]]
        else:
            refs = [rng.choice(titles)[0]] if titles and rng.random() < 0.1 else []
        titles.append((number, title))
        count = _lognormal_int(rng, 2.2, 1.2, 1, 300)
        additions = _lognormal_int(rng, 22 * max(1, count) ** 0.5, 1.3, 0, 20000)
        deletions = _lognormal_int(rng, max(1, additions * 0.3), 1.0, 0, 20000) if rng.random() < 0.8 else 0
        files = _files(rng, mods, count, additions, deletions)
        merged = start + timedelta(seconds=offset)
        yield {
            "number": number,
            "title": title,
            "body": _body(rng, title, refs, _lognormal_int(rng, 2000, 0.7, 80, 30000)),
            "state": "closed",
            "merged": True,
            "merged_at": merged.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "user": {"login": rng.choice(authors)},
            "co_authors": [rng.choice(authors)] if rng.random() < 0.08 else [],
            "labels": [],
            "base": {"ref": "main"},
            "merge_commit_sha": f"{rng.getrandbits(160):040x}",
            "html_url": f"https://github.com/{repo}/pull/{number}",
            "additions": sum(f["additions"] for f in files),
            "deletions": sum(f["deletions"] for f in files),
            "changed_files": len(files),
            "files": files,
        }


def write_jsonl(path: str | Path, n: int, **options: Any) -> Path:
    """Write `n` generated rows to `path` (one JSON object per line) and return the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as handle:
        for row in generate(n, **options):
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("--out", default=".prhub/bench-cache/synthetic.jsonl")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--days", type=int, default=28)
    args = parser.parse_args()
    started = time.perf_counter()
    path = write_jsonl(args.out, args.count, seed=args.seed, days=args.days)
    print(f"{args.count} PRs -> {path} ({path.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
