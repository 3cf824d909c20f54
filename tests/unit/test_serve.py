"""`prhub serve` (prhub_local.serve): a site directory on 127.0.0.1 with CloudFront's rewrite and content types."""
from __future__ import annotations

import http.client
import urllib.error
import urllib.request

import pytest

from prhub_local import serve
from tests.fakes.loopback import running


@pytest.fixture
def served(tmp_path):
    (tmp_path / "o" / "r" / "reports" / "w").mkdir(parents=True)
    (tmp_path / "index.html").write_text("<p>root</p>")
    (tmp_path / "o" / "r" / "index.html").write_text("<p>repo 中文</p>", encoding="utf-8")
    (tmp_path / "o" / "r" / "feed.xml").write_text("<feed/>")
    (tmp_path / "o" / "r" / "reports" / "w" / "report.pdf").write_bytes(b"%PDF-1.4")
    (tmp_path / "o" / "r" / "reports" / "w" / "report.md").write_text("# x")
    with running(serve.make_server(tmp_path, "127.0.0.1", 0)) as url:
        yield url


@pytest.mark.parametrize("path, ctype, body", [
    ("/", "text/html; charset=utf-8", "root"),
    ("/o/r/", "text/html; charset=utf-8", "repo 中文"),
    ("/o/r", "text/html; charset=utf-8", "repo 中文"),
    ("/o/r/feed.xml", "application/atom+xml", "<feed/>"),
    ("/o/r/reports/w/report.pdf", "application/pdf", "%PDF"),
    ("/o/r/reports/w/report.md?x=1", "text/markdown; charset=utf-8", "# x"),
])
def test_serve_rewrites_like_cloudfront_with_the_right_content_types(served, path, ctype, body):
    with urllib.request.urlopen(served + path) as response:
        assert response.headers["Content-Type"] == ctype
        assert body in response.read().decode("utf-8")


def test_serve_never_lists_a_directory(served):
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(served + "/o/r/reports/w/")
    assert err.value.code == 404


@pytest.mark.parametrize("path, status", [
    ("/%00", 400),  # open() refuses a NUL: once a traceback and a dropped connection
    ("/o/r%00/", 400),
    ("/%0a", 400),
    ("/%zz", 400),  # not percent-encoding
    ("/%", 400),
    ("/%c3%28", 400),  # not UTF-8
    ("/..%2f", 404),
    ("/..%2f..%2fetc/passwd", 404),
    ("/o/..%5c..%5cindex.html", 404),
    ("/" + "a" * 5000, 404),  # a name too long for the file system
    ("/" + "a/" * 40000, 414),  # a request line longer than http.server reads
])
def test_serve_answers_malformed_paths_without_a_traceback(served, path, status, capfd):
    host, port = served.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    connection.request("GET", path)
    response = connection.getresponse()
    assert response.status == status
    assert b"etc" not in response.read()
    connection.close()
    assert "Traceback" not in capfd.readouterr().err
