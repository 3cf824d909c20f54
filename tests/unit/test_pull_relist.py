"""A PR page listed again (issue 25: the year after its weeks) is its stored files with their mentions section
rendered anew (prhub.site.render.pull.relist_pull), the same bytes a whole rendering gives; a stored file laid out
otherwise is refused, to be rendered whole."""
from __future__ import annotations

import copy
from typing import Any

import pytest
from prhub.site import pulls
from prhub.site.render.pull import relist_pull, render_pull_all

from tests.golden.cases import HOSTILE, hostile_report, load

WEEK = "2026-05-04-to-2026-05-10"
MONTH, YEAR = "2026-05-01-to-2026-05-31", "2025-08-23-to-2026-08-22"


def mention(slug: str, lang: str, title: str | None = None) -> pulls.Mention:
    return {"slug": slug, "title": title or slug.replace("-to-", " – "), "language": lang}


def page_of(report: dict[str, Any], number: int, slugs: list[str]) -> pulls.PullPage:
    lang = report["language"]
    return pulls.pull_page(report, WEEK, number, files=[{"path": "a/b.py", "additions": 3, "deletions": 1}],
                           mentions=[mention(s, lang) for s in slugs],
                           neighbours={"earlier": [], "later": []})


def relisted(page: pulls.PullPage, slugs: list[str], titles: dict[str, str] | None = None) -> pulls.PullPage:
    lang = page["language"]
    return {**page, "mentions": [mention(s, lang, (titles or {}).get(s)) for s in sorted(slugs)]}  # type: ignore[typeddict-item]


CHANGES = [([WEEK], [WEEK, YEAR]), ([WEEK, MONTH], [WEEK, MONTH, YEAR]), ([WEEK, MONTH, YEAR], [WEEK]),
           ([WEEK, YEAR], [WEEK, MONTH])]


@pytest.mark.parametrize("case", ["zh-week", "en-small", "hostile"])
@pytest.mark.parametrize(("before", "after"), CHANGES)
def test_a_relisted_page_is_byte_for_byte_its_whole_rendering(case, before, after):
    report = hostile_report() if case == "hostile" else copy.deepcopy(load(case))
    home = report["language"]
    for entry in report["prs"][:6]:
        was = page_of(report, entry["number"], before)
        stored = render_pull_all(was, home, with_pdf=False)
        # a report title from the data, hostile where the case is: it is escaped like any other untrusted text
        page = relisted(was, after, {YEAR: HOSTILE[entry["number"] % len(HOSTILE)]} if case == "hostile" else None)
        files = relist_pull(page, was, stored, home)
        assert files == render_pull_all(page, home, with_pdf=False)


def test_a_page_in_another_language_folder_relists_with_its_own_links():
    report = copy.deepcopy(load("en-small"))
    was = page_of(report, report["prs"][0]["number"], [WEEK])
    stored = render_pull_all(was, "zh", with_pdf=False)  # the English page beside a Chinese home: pull/N/en/
    page = relisted(was, [WEEK, YEAR])
    files = relist_pull(page, was, stored, "zh")
    assert files == render_pull_all(page, "zh", with_pdf=False)
    assert files is not None and f'href="../../../reports/{YEAR}/en/"' in files["index.html"].decode()


def test_titles_that_mimic_the_page_layout_cannot_move_the_cut():
    report = copy.deepcopy(load("zh-week"))
    entry = report["prs"][0]
    entry["title"] = '</main><section id="mentions"> x'
    entry["summary"] = "a\n## 其他收录它的报告\n- 1999"
    entry["key_points"] = ["</section></main>", "\n\n## 其他收录它的报告\n"]
    was = page_of(report, entry["number"], [WEEK, MONTH])
    page = relisted(was, [WEEK, MONTH, YEAR], {YEAR: "</main>\n## 其他收录它的报告\n"})
    assert relist_pull(page, was, render_pull_all(was, "zh", with_pdf=False), "zh") == \
        render_pull_all(page, "zh", with_pdf=False)


@pytest.mark.parametrize("damage", ["no html", "no main end", "another mentions layout", "markdown edited",
                                    "no markdown mentions", "two markdown mentions"])
def test_a_stored_file_laid_out_otherwise_is_refused(damage):
    report = copy.deepcopy(load("zh-week"))
    was = page_of(report, report["prs"][0]["number"], [WEEK, MONTH])
    stored: dict[str, bytes | None] = dict(render_pull_all(was, "zh", with_pdf=False))
    html, md = (stored["index.html"] or b"").decode(), (stored["report.md"] or b"").decode()
    if damage == "no html":
        stored["index.html"] = None
    elif damage == "no main end":
        stored["index.html"] = html.replace("</main>", "").encode()
    elif damage == "another mentions layout":
        stored["index.html"] = html.replace('<section id="mentions">', '<section id="mentions" class="x">').encode()
    elif damage == "markdown edited":
        stored["report.md"] = md.replace("\n## ", "\n\n\n## ", 1).encode()
    elif damage == "no markdown mentions":
        stored["report.md"] = md[:md.rfind("\n## ")].encode()
    else:
        cut = md.rfind("\n## ")
        stored["report.md"] = (md[:cut] + md[cut:] + md[cut:]).encode()
    assert relist_pull(relisted(was, [WEEK, MONTH, YEAR]), was, stored, "zh") is None


def test_a_page_that_had_no_other_report_refuses_a_stored_mentions_section():
    # An earlier layout listed the page's own report too: its section is there though the page names no other.
    report = copy.deepcopy(load("zh-week"))
    was = page_of(report, report["prs"][0]["number"], [WEEK])
    other = page_of(report, report["prs"][0]["number"], [WEEK, MONTH])
    own, earlier = render_pull_all(was, "zh", with_pdf=False), render_pull_all(other, "zh", with_pdf=False)
    for stored in (earlier, {**own, "index.html": earlier["index.html"]}, {**own, "report.md": earlier["report.md"]}):
        assert relist_pull(relisted(was, [WEEK, YEAR]), was, stored, "zh") is None
