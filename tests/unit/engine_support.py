"""Small PRs built in tests for the analysis engine (scoring, analysis, narrative)."""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from prhub.core.config import RepoConfig
from prhub.core.models import FileChange, PullRequest, Review

CONFIG = RepoConfig(repo="acme/trainer", tz="Asia/Shanghai", language="en")  # engine phrases asserted in English
VERL_TEMPLATE = """### What does this PR do?

> Add **concise** overview of what this PR aims to achieve or
accomplish. Reference related GitHub issues and PRs that help with the
review.

### Checklist Before Starting

- [ ] Search for similar PRs. Paste at least one query link here: ...
- [ ] Format the PR title as `[{modules}] {type}: {description}` (This
will be checked by the CI)

### Test

> For changes that can not be tested by CI (e.g., algorithm
implementation, new model support), validate by experiment(s) and show
results like training curve plots, evaluation results, etc.

### API and Usage Example

> Demonstrate how the API changes if any, and provide usage example(s)
if possible.

```python
# Add code snippet or script demonstrating how to use this
```

### Design & Code Changes

> Demonstrate the high-level design if this PR is complex, and list the
specific changes.

### Checklist Before Submitting

> [!IMPORTANT]
> Please check all the following items before requesting a review,
otherwise the reviewer might deprioritize this PR for review.

- [ ] Read the [Contribute
Guide](https://github.com/verl-project/verl/blob/main/CONTRIBUTING.md).
- [ ] Add / Update [the
documentation](https://github.com/verl-project/verl/tree/main/docs).
"""


def change(filename: str, additions: int = 10, deletions: int = 2, status: str = "modified",
           patch: str | None = None, previous: str | None = None) -> FileChange:
    return FileChange(filename=filename, status=status, additions=additions, deletions=deletions,
                      previous_filename=previous, patch=patch)


def make_pr(title: str, files: list[FileChange] | None = None, body: str = "", number: int = 100,
            author: str = "alice", merged_at: str = "2026-06-16T04:00:00Z", labels: list[str] | None = None,
            reviews: list[tuple[str, str]] | None = None) -> PullRequest:
    files = files if files is not None else [change("pkg/core.py"), change("tests/test_core.py")]
    return PullRequest(
        number=number, title=title, body=body, author=author,
        merged_at=datetime.fromisoformat(merged_at.replace("Z", "+00:00")).astimezone(UTC),
        url=f"https://github.com/acme/trainer/pull/{number}", labels=labels or [],
        additions=sum(f.additions for f in files), deletions=sum(f.deletions for f in files),
        changed_files=len(files), files=files, reviews=[Review(r, s) for r, s in reviews or []],
    )


def history_entry(number: int, title: str, merged_at: str, author: str = "bob", **extra: Any) -> dict[str, Any]:
    return {"number": number, "title": title, "author": author, "merged_at": merged_at,
            "url": f"https://github.com/acme/trainer/pull/{number}", **extra}
