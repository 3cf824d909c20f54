"""Hostile input at the pure entry points: periods, repository names, the watch list, export files.

Each bad value gets an InputError/SourceError whose message names what is wrong, or
(export lines) is skipped with a reason; nothing escapes as an unrelated exception.
"""
from __future__ import annotations

import io
import json
import time
from typing import Any

import pytest
from prhub.cloud.dynamo import pack
from prhub.core.config import RepoConfig, WatchList, check_repo
from prhub.core.errors import InputError, SourceError
from prhub.core.models import PullRequest
from prhub.core.period import MAX_DAYS, Period
from prhub.engine.scoring import score_pull
from prhub.sources.source import JsonlSource, open_source

WEEK = Period.parse("2026-05-04", "2026-05-10", "Asia/Shanghai")


def row(number: int, **extra: Any) -> dict[str, Any]:
    base = {"number": number, "title": f"[trainer] fix: thing {number}", "body": "b",
            "merged_at": "2026-05-05T03:00:00Z", "user": {"login": "alice"}, "html_url": f"https://github.com/o/r/pull/{number}",
            "files": [{"filename": "a.py", "additions": 1, "deletions": 0}]}
    return {**base, **extra}


def line(data: Any) -> str:
    return json.dumps(data)


# -- periods ---------------------------------------------------------------

@pytest.mark.parametrize(("since", "until", "words"), [
    ("2026-02-30", "2026-03-01", "since must be a date"),
    ("yesterday", "2026-03-01", "since must be a date"),
    ("", "2026-03-01", "since must be a date"),
    (None, "2026-03-01", "since must be a date"),
    ("2026-05-04T00:00", "2026-05-10", "since must be a date"),
    ("2026-05-04", "2026-13-01", "until must be a date"),
    ("2026-05-04", "2026-05-10; DROP TABLE runs", "until must be a date"),
    ("2026-05-11", "2026-05-10", "is after until"),
    ("2025-01-01", "2026-01-02", f"maximum of {MAX_DAYS}"),
    ("0001-01-01", "9999-12-31", f"maximum of {MAX_DAYS}"),
])
def test_period_rejects_bad_ranges_with_a_message_naming_the_problem(since: Any, until: Any, words: str) -> None:
    with pytest.raises(InputError, match=words):
        Period.parse(since, until, "UTC")


def test_period_accepts_exactly_the_maximum_and_a_single_day() -> None:
    assert Period.parse("2024-01-01", "2024-12-31", "UTC").days == MAX_DAYS  # leap year: 366 days
    assert Period.parse("2026-05-04", "2026-05-04", "UTC").days == 1


@pytest.mark.parametrize("tz", ["Mars/Olympus_Mons", "", "utc", "UTC ", "/etc/passwd", "../../etc/passwd",
                                "Asia/Shanghai\x00", None, 8, ["UTC"]])
def test_period_rejects_unknown_time_zones_as_input_errors(tz: Any) -> None:
    with pytest.raises(InputError, match="time zone"):
        Period.parse("2026-05-04", "2026-05-10", tz)


# -- repository names -----------------------------------------------------

@pytest.mark.parametrize("repo", ["", "verl", "verl/", "/verl", "a/b/c", "owner/na me", "-owner/name",
                                  "owner/..", "owner/name.", "<script>/x", "owner/name\n", "o" * 40 + "/name",
                                  "owner/" + "n" * 101, None, 42, ["o/n"], "owner/name/../../etc"])
def test_check_repo_rejects_anything_not_owner_slash_name(repo: Any) -> None:
    with pytest.raises(InputError, match="owner/name"):
        check_repo(repo)


@pytest.mark.parametrize("repo", ["verl-project/verl", "a/b", "octo-org/repo.js", "x/under_score-1"])
def test_check_repo_accepts_real_names(repo: str) -> None:
    assert check_repo(repo) == repo


# -- the watch list ---------------------------------------------------------

@pytest.mark.parametrize(("text", "words"), [
    ("{not json", "not valid JSON"),
    ("", "not valid JSON"),
    ("[1, 2]", "must be"),
    ('{"repos": {"repo": "a/b"}}', "must be"),
    ('{"repos": [{"repo": "a/b", "colour": "red"}]}', "unknown repository settings: 'colour'"),
    ('{"defaults": {"tzz": "UTC"}, "repos": ["a/b"]}', "unknown defaults settings: 'tzz' \\(did you mean 'tz'"),
    ('{"repos": [{"repo": "a/b", "llm": {"modle": "x"}}]}', "unknown llm settings: 'modle' \\(did you mean 'model'"),
    ('{"repos": [{"repo": "a/b", "language": "fr"}]}', "language must be one of"),
    ('{"repos": [{"repo": "a/b", "tz": "Nowhere/City"}]}', "unknown time zone"),
    ('{"repos": [{"repo": "not a repo"}]}', "owner/name"),
    ('{"repos": [{"repo": "a/b", "scorer": "magic"}]}', "scorer must be"),
    ('{"repos": [{"title": "no repo key"}]}', "repo"),
])
def test_watch_list_rejects_bad_documents_with_a_clear_message(text: str, words: str) -> None:
    with pytest.raises(InputError, match=words):
        WatchList.parse(text)


@pytest.mark.parametrize(("text", "where", "near"), [
    ('{"defualts": {"tz": "Asia/Shanghai"}, "repos": ["a/b"]}', "watch list", "defaults"),
    ('{"defaults": {"timezone": "Asia/Shanghai"}, "repo": ["a/b"]}', "watch list", "repos"),
    ('{"defaults": {"langauge": "en"}, "repos": ["a/b"]}', "defaults", "language"),
    ('{"repos": [{"repo": "a/b", "modul_map": {}}]}', "repository", "module_map"),
    ('{"repos": [{"repo": "a/b", "llm": {"max_token_per_run": 5}}]}', "llm", "max_tokens_per_run"),
    ('{"repos": ["a/b"], "digest": {"titel": "x"}}', "digest", "title"),
])
def test_watch_list_refuses_an_unknown_key_at_every_level_naming_the_nearest(text: str, where: str,
                                                                             near: str) -> None:
    with pytest.raises(InputError) as caught:
        WatchList.parse(text)
    assert str(caught.value).startswith(f"unknown {where} settings: ")
    assert f"(did you mean {near!r}?)" in str(caught.value)


def test_a_misspelled_top_level_key_stops_prhub_run_with_exit_2_and_writes_nothing(
        tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from prhub_local import cli, runner

    def never(*args: Any) -> None:
        raise AssertionError("the embedded AWS was started for a watch list that is refused")

    monkeypatch.setattr(runner.EmbeddedAws, "__enter__", never)
    config = tmp_path / "watch.json"
    config.write_text('{"defualts": {"tz": "Asia/Shanghai"}, "repos": ["acme/rocket"]}', encoding="utf-8")
    code = cli.main(["run", "--config", str(config), "--state", str(tmp_path / "s" / "state"),
                     "--out", str(tmp_path / "site")])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and err[-1].startswith("prhub: unknown watch list settings: 'defualts'")
    assert "(did you mean 'defaults'?)" in err[-1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["watch.json"]


@pytest.mark.parametrize("flag", ["--out", "--state"])
def test_a_file_where_out_or_state_names_a_folder_stops_the_run_before_it_starts(
        tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, flag: str) -> None:
    from prhub_local import cli, runner

    def never(*args: Any) -> None:
        raise AssertionError("the run started although its folder is a file")

    monkeypatch.setattr(runner.EmbeddedAws, "__enter__", never)
    (tmp_path / "afile").write_text("mine", encoding="utf-8")
    folders = {"--out": str(tmp_path / "site"), "--state": str(tmp_path / "state"), flag: str(tmp_path / "afile" / "x")}
    code = cli.main(["run", "--out", folders["--out"], "--state", folders["--state"]])
    err = capsys.readouterr().err.splitlines()
    blocked = tmp_path / "afile"
    assert code == 2 and err[-1] == f"prhub: {flag} {blocked / 'x'}: {blocked} is a file, not a folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"] and (tmp_path / "afile").read_text() == "mine"


def test_watch_list_unknown_repo_gets_defaults_but_a_bad_name_is_refused() -> None:
    watch = WatchList.parse('{"defaults": {"tz": "Asia/Shanghai"}, "repos": ["a/b"]}')
    assert watch.get("other/repo").tz == "Asia/Shanghai"
    with pytest.raises(InputError):
        watch.get("../../etc/passwd")


# -- export files ------------------------------------------------------------

def test_corrupt_and_non_object_lines_are_skipped_with_their_line_number() -> None:
    lines = [line(row(1)), '{"number": 2, "title": "cut in the mid', line([1, 2]), "null", '"text"', "42",
             line(row(3)), "", line(row(4, merged_at="not a date")), line({**row(5), "number": "five"}),
             line({"title": "no number"}), line(row(6, files=[None])), line(row(7, files="abc"))]
    source = JsonlSource(lines, "x.jsonl")
    assert sorted(r.number for r in source.list_merged("o/r", WEEK)) == [1, 3]
    reasons = "\n".join(source.skipped)
    for lineno in (2, 3, 4, 5, 6, 9, 10, 11, 12, 13):
        assert f"x.jsonl:{lineno}:" in reasons
    assert "x.jsonl:8:" not in reasons  # a blank line is not an error
    assert "not a JSON object" in reasons


@pytest.mark.parametrize("shape", [{"user": "alice"}, {"base": "main"}, {"head": ["sha"]}, {"labels": 5},
                                   {"reviews": [{"reviewer": "x"}]}, {"files": [{"additions": 1}]},
                                   {"files": [{"filename": "a.py", "additions": "many"}]}])
def test_fields_of_the_wrong_shape_skip_the_line_instead_of_crashing_the_load(shape: dict[str, Any]) -> None:
    source = JsonlSource([line(row(1)), line(row(2, **shape))], "x.jsonl")
    assert [r.number for r in source.list_merged("o/r", WEEK)] == [1]
    assert len(source.skipped) == 1 and source.skipped[0].startswith("x.jsonl:2:")


def test_pathologically_nested_json_is_skipped_not_a_recursion_crash() -> None:
    source = JsonlSource(["[" * 100_000, line(row(1))], "x.jsonl")
    assert [r.number for r in source.list_merged("o/r", WEEK)] == [1]
    assert source.skipped and source.skipped[0].startswith("x.jsonl:1:")


def test_duplicate_pr_keeps_the_first_and_names_the_duplicate() -> None:
    source = JsonlSource([line(row(7, title="first")), line(row(7, title="second"))], "x.jsonl")
    assert [(r.number, r.title) for r in source.list_merged("o/r", WEEK)] == [(7, "first")]
    assert source.skipped == ["x.jsonl:2: duplicate of PR #7, ignored"]


def test_non_utf8_bytes_inside_a_string_are_replaced_and_outside_skip_the_line(tmp_path: Any) -> None:
    path = tmp_path / "export.jsonl"
    good = line(row(1, title="[trainer] fix: caf\u00e9")).encode()
    bad_title = line(row(2, title="XX")).encode().replace(b"XX", b"\xff\xfe\xc3")
    outside = b"\xff" + line(row(3)).encode()
    path.write_bytes(b"\n".join([good, bad_title, outside, b"\x80\x81\x82"]) + b"\n")
    source = JsonlSource.from_path(str(path))
    prs = {r.number: r for r in source.list_merged("o/r", WEEK)}
    assert sorted(prs) == [1, 2]
    assert prs[1].title.endswith("caf\u00e9")
    assert "\ufffd" in prs[2].title
    assert [s.split(":")[1] for s in source.skipped] == ["3", "4"]


def test_non_utf8_export_in_s3_is_read_with_replacement() -> None:
    class FakeS3:
        def get_object(self, Bucket: str, Key: str) -> dict[str, Any]:  # noqa: N803 - boto3's names
            assert (Bucket, Key) == ("bucket", "dir/export.jsonl")
            return {"Body": io.BytesIO(line(row(1, body="XX")).encode().replace(b"XX", b"\xc0\xc1") + b"\n\xfe\n")}

    source = JsonlSource.from_path("s3://bucket/dir/export.jsonl", s3_client=FakeS3())
    assert [r.number for r in source.list_merged("o/r", WEEK)] == [1]
    assert len(source.skipped) == 1


def test_missing_export_file_and_unknown_source_spec_are_clear_errors(tmp_path: Any) -> None:
    with pytest.raises(SourceError, match="cannot read export file"):
        JsonlSource.from_path(str(tmp_path / "nope.jsonl"))
    with pytest.raises(InputError, match="unknown source"):
        open_source("ftp://example.com/x")


def test_oversized_pr_loads_scores_fast_and_stores_below_the_dynamodb_item_limit() -> None:
    files = [{"filename": f"src/pkg/module_{i // 50}/sub_{i % 50}/file_{i}.py", "status": "modified",
              "additions": 3, "deletions": 1} for i in range(3000)]
    big = row(9, body="lorem ipsum dolor sit amet " * 40_000, files=files, files_truncated=True)
    text = line(big)
    assert len(text) > 1_000_000
    source = JsonlSource([text], "x.jsonl")
    assert source.skipped == []
    ref = source.list_merged("o/r", WEEK)[0]
    pr = source.get("o/r", ref)
    assert (pr.changed_files, pr.additions, pr.files_truncated) == (3000, 9000, True)

    started = time.perf_counter()
    scored = score_pull(pr, RepoConfig("o/r"))
    assert time.perf_counter() - started < 2.0
    assert scored.number == 9 and 0 <= scored.importance <= 10 and 0 <= scored.insight <= 10
    assert len(pack(scored.to_dict())) < 400 * 1024  # DynamoDB's item limit


def test_export_round_trip_survives_control_and_markup_characters() -> None:
    nasty = "[ci] fix: <img src=x onerror=alert(1)> \u202e\x00\x1b[31m {{ config }} $(rm -rf /)"
    pr = PullRequest.from_export(row(1, title=nasty, body=nasty))
    again = PullRequest.from_export(json.loads(json.dumps(pr.to_export())))
    assert (again.title, again.body) == (nasty, nasty)


# -- what an export holds ------------------------------------------------------

def test_an_export_of_another_repository_is_bad_input_naming_what_it_holds() -> None:
    source = JsonlSource([line(row(1)), line(row(2))], "x.jsonl")
    with pytest.raises(InputError, match=r"x.jsonl holds no PR of foo/bar: its PRs are of o/r"):
        source.list_merged("foo/bar", WEEK)
    assert [r.number for r in source.list_merged("O/R", WEEK)] == [1, 2]  # GitHub names are case-insensitive


def test_records_of_another_repository_are_not_served_for_this_one() -> None:
    other = row(3, html_url="https://github.com/x/y/pull/3")
    source = JsonlSource([line(row(1)), line(other)], "x.jsonl")
    assert [r.number for r in source.list_merged("o/r", WEEK)] == [1]
    with pytest.raises(SourceError, match="#3 of o/r is not in"):
        source.get("o/r", source.list_merged("x/y", WEEK)[0])


@pytest.mark.parametrize("text", ["", "\n\n", "hello world\nthis is a text file\n", "[1, 2, 3]\n",
                                  "import os\n\nprint(os.getcwd())\n", '{"a": 1}\n'])
def test_an_export_with_no_readable_pr_is_bad_input_not_an_empty_report(text: str) -> None:
    source = JsonlSource(text.splitlines(keepends=True), "x.jsonl")
    for ask in (source.list_merged, source.notes):
        with pytest.raises(InputError, match=r"x.jsonl holds no (readable )?PR"):
            ask("o/r", WEEK)


def test_a_range_outside_the_export_is_bad_input_and_a_partial_one_is_noted() -> None:
    source = JsonlSource([line(row(1, merged_at="2026-05-05T03:00:00Z")),
                          line(row(2, merged_at="2026-05-08T03:00:00Z"))], "x.jsonl")
    later = Period.parse("2026-06-01", "2026-06-07", "UTC")
    with pytest.raises(InputError, match="covers merges from 2026-05-05 to 2026-05-08 .*2026-06-01 to 2026-06-07"):
        source.notes("o/r", later)
    with pytest.raises(InputError, match="lies outside"):
        source.notes("o/r", Period.parse("2026-04-01", "2026-04-30", "UTC"))
    assert source.list_merged("o/r", later) == []  # listing a trend week before or after is no error
    partly = Period.parse("2026-05-06", "2026-05-20", "UTC")
    assert [r.number for r in source.list_merged("o/r", partly)] == [2]
    assert any("covers merges from 2026-05-05 to 2026-05-08 only" in n for n in source.notes("o/r", partly))
    assert any("只覆盖 2026-05-05 至 2026-05-08" in n for n in source.notes("o/r", partly, "zh"))
    inside = Period.parse("2026-05-05", "2026-05-08", "UTC")
    assert source.notes("o/r", inside) == []


def test_notes_name_file_line_and_problem_in_the_report_language_never_the_value() -> None:
    secret = "AKIA" + "X" * 16  # shaped like an AWS access key id, built here so no key-like text is tracked
    lines = [line(row(1)), line({**row(2), "number": secret}), line(row(3, merged_at=secret)),
             line(row(4, files=[{"filename": "a.py", "additions": secret}])), secret, line([secret])]
    source = JsonlSource(lines, "x.jsonl")
    for lang in ("en", "zh"):
        notes = "\n".join(source.notes("o/r", WEEK, lang))
        assert secret not in notes and secret not in "\n".join(source.skipped)
        for lineno in (2, 3, 4, 5, 6):
            assert f"x.jsonl:{lineno}" in notes
    zh = source.notes("o/r", WEEK, "zh")
    assert any("字段 number 的格式不对" in n for n in zh) and any("不是有效的 JSON" in n for n in zh)
    assert any("field merged_at has the wrong shape" in n for n in source.notes("o/r", WEEK))


def test_a_record_marked_not_merged_is_skipped_and_named_not_counted() -> None:
    source = JsonlSource([line(row(1)), line(row(2, merged=False, state="closed")), line(row(3, merged=True))],
                         "x.jsonl")
    assert [ref.number for ref in source.list_merged("o/r", WEEK)] == [1, 3]
    assert any("x.jsonl:2: merged is false" in n for n in source.notes("o/r", WEEK))
    assert any("未合并" in n for n in source.notes("o/r", WEEK, "zh"))


def test_the_published_notes_name_the_export_file_without_the_operators_folders() -> None:
    source = JsonlSource([line(row(1)), "{not json"], "/home/operator/private-exports/verl.jsonl")
    for lang in ("en", "zh"):
        notes = "\n".join(source.notes("o/r", WEEK, lang))
        assert "verl.jsonl:2" in notes and "/home/operator" not in notes and "private-exports" not in notes
    windows = JsonlSource([line(row(1)), "{not json"], "C:\\Users\\op\\exports\\verl.jsonl")
    assert any("（verl.jsonl:2）" in n for n in windows.notes("o/r", WEEK, "zh"))
    # the operator's own warnings keep the path: it is theirs to find the file by
    assert any("/home/operator/private-exports/verl.jsonl:2" in w for w in source.warnings("o/r", WEEK))


def test_warnings_count_and_name_every_skipped_line_where_the_notes_stop_at_their_cap() -> None:
    from prhub.sources.source import MAX_NOTES

    lines = [line(row(1)), *(["{broken"] * (MAX_NOTES + 5))]
    source = JsonlSource(lines, "x.jsonl")
    warnings = source.warnings("o/r", WEEK)
    assert warnings[0] == f"x.jsonl: {MAX_NOTES + 5} line(s) skipped"
    assert [w for w in warnings if w.startswith("export line")] == [
        f"export line skipped: x.jsonl:{n}: not valid JSON" for n in range(2, MAX_NOTES + 7)]
    assert source.notes("o/r", WEEK)[-1] == "export lines with problems: 5 more"
    assert not [w for w in JsonlSource([line(row(1))], "x.jsonl").warnings("o/r", WEEK) if "line" in w]


def test_a_pull_url_off_site_or_of_another_number_skips_the_line_and_a_missing_one_is_made() -> None:
    lines = [line(row(1, html_url="https://evil.example/o/r/pull/1")),
             line(row(2, html_url="https://github.com/o/r/pull/99")),
             line(row(3, html_url="javascript:alert(1)")), line(row(4, html_url=None))]
    source = JsonlSource(lines, "x.jsonl")
    refs = source.list_merged("o/r", WEEK)
    assert [(r.number, r.url) for r in refs] == [(4, "https://github.com/o/r/pull/4")]
    assert [s.split(":")[1] for s in source.skipped] == ["1", "2", "3"]
    assert "html_url is not this PR's GitHub page" in source.skipped[0]
    enterprise = JsonlSource([line(row(5, html_url="https://ghe.example.com/o/r/pull/5"))], "x.jsonl",
                             host="ghe.example.com")
    assert [r.number for r in enterprise.list_merged("o/r", WEEK)] == [5]


def test_fields_are_capped_as_github_caps_them_and_the_cut_is_noted() -> None:
    files = [{"filename": f"f{i}.py", "additions": 1, "deletions": 0} for i in range(3500)]
    source = JsonlSource([line(row(1, title="t" * 300_000, body="b" * 200_000, files=files))], "x.jsonl")
    pr = source.get("o/r", source.list_merged("o/r", WEEK)[0])
    assert (len(pr.title), len(pr.body), len(pr.files), pr.files_truncated) == (256, 65_536, 3000, True)
    assert pr.changed_files == 3500  # the totals stay what the export says
    notes = [n for n in source.notes("o/r", WEEK) if n.startswith("export line")]
    assert len(notes) == 3 and all("x.jsonl:1" in n for n in notes)
    assert source.skipped == []  # the PR is kept


def test_a_cut_field_is_noted_by_its_pr_and_only_in_the_report_of_its_period() -> None:
    # diffusers' January and May weeks both noted "导出文件第 49 行：body 超出 GitHub 的上限" of #14447, merged in
    # August; a skipped line is still said in every report (it may have held one of the range's PRs)
    source = JsonlSource([line(row(1, body="b" * 70_000)),
                          line(row(2, body="b" * 70_000, merged_at="2026-08-11T03:00:00Z")), "{not json"], "x.jsonl")
    notes = [n for n in source.notes("o/r", WEEK, "zh") if n.startswith("导出文件第")]
    assert notes == ["导出文件第 1 行（x.jsonl:1）：PR #1：body 超出 GitHub 的上限，已截断",
                     "导出文件第 3 行已跳过（x.jsonl:3）：不是有效的 JSON"]
    august = Period.parse("2026-08-10", "2026-08-16", "Asia/Shanghai")
    assert [n for n in source.notes("o/r", august) if "cut to" in n] == ["export line x.jsonl:2: PR #2: body cut to "
                                                                          "GitHub's limit"]


def test_a_direct_range_that_has_not_begun_is_bad_input() -> None:
    from datetime import UTC, datetime

    from prhub.core.config import WatchList
    from prhub.flow.plan import parse_plan_event

    now = datetime(2026, 5, 10, 17, 0, tzinfo=UTC)  # Monday 01:00 in Shanghai
    watch = WatchList.parse('{"repos": ["o/r"]}')
    with pytest.raises(InputError, match="has not begun"):
        parse_plan_event({"repo": "o/r", "since": "2026-05-12", "until": "2026-05-18", "tz": "Asia/Shanghai"},
                         lambda: watch, now)
    # the day that has just begun in the repository's zone may be asked for
    [req] = parse_plan_event({"repo": "o/r", "since": "2026-05-11", "until": "2026-05-17", "tz": "Asia/Shanghai"},
                             lambda: watch, now)
    assert str(req.period.since) == "2026-05-11"


# -- comparison periods ----------------------------------------------------------

@pytest.mark.parametrize(("since", "until", "kind", "previous"), [
    ("2026-05-04", "2026-05-10", "week", [("2026-04-06", "2026-04-12"), ("2026-04-13", "2026-04-19"),
                                          ("2026-04-20", "2026-04-26"), ("2026-04-27", "2026-05-03")]),
    ("2026-03-01", "2026-03-31", "month", [("2025-11-01", "2025-11-30"), ("2025-12-01", "2025-12-31"),
                                           ("2026-01-01", "2026-01-31"), ("2026-02-01", "2026-02-28")]),
    ("2025-01-01", "2025-12-31", "year", [("2021-01-01", "2021-12-31"), ("2022-01-01", "2022-12-31"),
                                          ("2023-01-01", "2023-12-31"), ("2024-01-01", "2024-12-31")]),
    ("2026-05-06", "2026-05-15", "range", [("2026-03-27", "2026-04-05"), ("2026-04-06", "2026-04-15"),
                                           ("2026-04-16", "2026-04-25"), ("2026-04-26", "2026-05-05")]),
])
def test_a_period_compares_with_the_four_before_it_of_the_same_length(since: str, until: str, kind: str,
                                                                       previous: list[tuple[str, str]]) -> None:
    period = Period.parse(since, until, "UTC")
    assert period.kind == kind
    assert [(str(p.since), str(p.until)) for p in period.previous(4)] == previous


# -- exports as people make them ---------------------------------------------

DAY = Period.parse("2026-05-05", "2026-05-05", "UTC")  # the day the rows merge: no coverage note

def test_a_byte_order_mark_on_line_1_is_accepted_not_a_dropped_pr(tmp_path: Any) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_text("\n".join([line(row(1)), line(row(2))]) + "\n", encoding="utf-8-sig")  # as Notepad saves it
    source = JsonlSource.from_path(str(path))
    assert [r.number for r in source.list_merged("o/r", DAY)] == [1, 2]
    assert source.problems == [] and source.warnings("o/r", DAY) == []


def test_a_pr_without_an_author_is_named_ghost_and_is_never_a_contributor() -> None:
    from prhub.core.history import History
    from prhub.core.models import NO_AUTHOR
    from prhub.engine.analysis import analyse_period

    source = JsonlSource([line(row(1, user=None)), line({k: v for k, v in row(2).items() if k != "user"}),
                          line(row(3, user={"login": None})), line(row(4))], "x.jsonl")
    prs = [source.get("o/r", r) for r in source.list_merged("o/r", DAY)]
    assert [p.author for p in prs] == [NO_AUTHOR, NO_AUTHOR, NO_AUTHOR, "alice"] and NO_AUTHOR == "ghost"
    config = RepoConfig("o/r")
    entries = [{"number": p.number, "title": p.title, "author": p.author, "merged_at": "2026-05-05T03:00:00Z",
                "modules": []} for p in prs]
    result = analyse_period([score_pull(p, config) for p in prs], [], WEEK, config, History.of(entries, WEEK),
                            "2026-05-11T01:00:00Z", {"kind": "heuristic", "model": None, "prompt_version": "t"})
    assert result["stats"]["authors"] == 1 and NO_AUTHOR not in result["stats"]["new_contributors"]


def test_files_null_is_kept_and_warned_naming_the_pr() -> None:
    source = JsonlSource([line(row(1, files=None)), line(row(2))], "x.jsonl")
    assert [r.number for r in source.list_merged("o/r", DAY)] == [1, 2]
    [warning] = source.warnings("o/r", DAY)
    assert warning.startswith("export line x.jsonl:1: PR #1: files is null")
    [note] = source.notes("o/r", DAY, "zh")
    assert "PR #1：files 为 null" in note


def test_a_truncated_last_line_is_named_as_cut_off_in_the_warning() -> None:
    cut = line(row(3))[:40]
    source = JsonlSource([line(row(1)) + "\n", '{"number": 2, "title": "bad"]\n', cut], "x.jsonl")
    warnings = source.warnings("o/r", DAY)
    assert "export line skipped: x.jsonl:2: not valid JSON" in warnings  # not the last line: plain bad JSON
    assert ("export line skipped: x.jsonl:3: the last line is cut off mid-record (was the export interrupted?)"
            in warnings)


def test_fifty_duplicate_lines_give_one_warning_with_their_count() -> None:
    source = JsonlSource([line(row(1)), line(row(2))] + [line(row(1))] * 50, "x.jsonl")
    assert [r.number for r in source.list_merged("o/r", DAY)] == [1, 2]
    warnings = source.warnings("o/r", DAY)
    assert warnings == ["x.jsonl: 50 line(s) skipped",
                        "export lines skipped: x.jsonl: 50 duplicates of earlier PRs, ignored (lines 3, 4, 5, 6, 7…)"]
    assert len(source.notes("o/r", DAY, "zh")) == 1
    # One duplicate is still named as such, with the PR it repeats.
    assert JsonlSource([line(row(1)), line(row(1))], "y.jsonl").warnings("o/r", DAY)[1].endswith(
        "duplicate of PR #1, ignored")


def test_a_lone_surrogate_is_replaced_warned_and_the_pr_stored(tmp_path: Any) -> None:
    path = tmp_path / "x.jsonl"
    # json.dumps writes the escape "\ud83d" as-is: the file is valid UTF-8, the value is half an emoji.
    path.write_text("\n".join([line(row(1, title="fix \ud83d crash")), line(row(2))]) + "\n", encoding="utf-8")
    source = JsonlSource.from_path(str(path))
    prs = [source.get("o/r", r) for r in source.list_merged("o/r", DAY)]
    assert [p.number for p in prs] == [1, 2] and prs[0].title == "fix \ufffd crash"
    pack(prs[0].to_export())  # what raised UnicodeEncodeError and stopped the run
    [warning] = source.warnings("o/r", DAY)
    assert f"{path}:1: PR #1: text that is not valid UTF-8" in warning


def test_text_from_any_source_is_made_valid_where_the_flow_reads_it(caplog: pytest.LogCaptureFixture) -> None:
    from datetime import UTC, datetime

    from prhub.core.models import PullRef
    from prhub.sources.source import ListPage, TimedSource

    class Gh:  # stands in for GitHub's sources: they hand over what the API's JSON held
        def list_pages(self, repo: str, period: Period, resume: Any = None) -> Any:
            yield ListPage([PullRef(7, "a \udc00 b", "bob", datetime(2026, 5, 5, tzinfo=UTC), "u")], None)

        def get(self, repo: str, ref: Any) -> PullRequest:
            return PullRequest.from_export(row(7, body="x\ud800"))

    timed = TimedSource(Gh(), None)  # type: ignore[arg-type]
    [page] = timed.list_pages("o/r", DAY)
    assert page.refs[0].title == "a \ufffd b"
    pr = timed.get("o/r", page.refs[0])
    assert pr.body == "x\ufffd"
    pack(pr.to_export())
    assert "PR #7 of o/r: text that is not valid UTF-8" in caplog.text
