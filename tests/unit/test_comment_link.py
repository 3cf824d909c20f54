"""A review comment's link is shown only where it points into its PR's own page (issue 26): the renderers do not take
report.json's word for it, as the engine does not take a source's."""
from __future__ import annotations

import pytest
from prhub.core.text import comment_link

PR = "https://github.com/acme/trainer/pull/1"


@pytest.mark.parametrize("url, shown", [
    (f"{PR}#discussion_r7", f"{PR}#discussion_r7"),
    (f"{PR}#issuecomment-9", f"{PR}#issuecomment-9"),
    ("https://github.com/acme/trainer/pull/12#discussion_r7", None),  # another PR's (#12 starts with #1's digits)
    ("https://evil.example/acme/trainer/pull/1#x", None),
    ("javascript:alert(1)//https://github.com/acme/trainer/pull/1#x", None),
    (f"{PR}", None),  # the page itself is no comment
    ("", None),
    (None, None),
])
def test_only_links_into_the_prs_own_page_are_kept(url, shown) -> None:
    assert comment_link(url, PR) == shown


def test_without_the_prs_address_no_comment_is_linked() -> None:
    assert comment_link(f"{PR}#discussion_r7", None) is None
