"""Two PDFs written at once in one process (ReportFunction and PagesFunction pollers are threads of one local run,
as after an interrupted run whose PR pages are still queued): neither may change the other's objects.

fpdf2 numbers a font's descriptor while it writes a document (`desc.id`) and hangs the document's font file on
it; the CJK font's parse is shared per process (prhub.site.render.pdffont._parsed_font), so a shared descriptor let
one document renumber the other's mid-write: `output()` then failed with `KeyError: 28` (the descriptor's number
in the other document), or wrote a PDF whose font pointed at the other's object.
"""
from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

from fpdf.output import OutputProducer
from prhub.site.render.labels import labels
from prhub.site.render.pdf import render_sections

WORDS = labels("zh")


def _write(title: str, paragraphs: list[str]) -> bytes:
    return render_sections(title, WORDS, {}, ["acme/rocket"],
                           [SimpleNamespace(heading="摘要", kind="paragraphs", data=paragraphs)])


def test_a_document_written_while_another_is_written_keeps_its_own_font_objects(monkeypatch: Any) -> None:
    added = OutputProducer._add_pdf_obj
    paused, resumed = threading.Event(), threading.Event()
    first = threading.current_thread()

    def pause_after_the_descriptor(self: Any, obj: Any, label: Any = None) -> int:
        number = added(self, obj, label)
        if type(obj).__name__ == "PDFFontDescriptor" and threading.current_thread() is not first:
            paused.set()  # the first document has numbered its descriptor: let the other write meanwhile
            assert resumed.wait(60)
        return number

    monkeypatch.setattr(OutputProducer, "_add_pdf_obj", pause_after_the_descriptor)
    out: dict[str, Any] = {}

    def write_long() -> None:
        try:
            out["long"] = _write("周报 2026-W23", ["中文段落，含 ASCII text。" * 60] * 12)
        except BaseException as exc:  # reported below: the assertion names it
            out["error"] = exc

    worker = threading.Thread(target=write_long)
    worker.start()
    assert paused.wait(60)
    short = _write("PR #1205", ["短"])
    resumed.set()
    worker.join(60)
    assert "error" not in out, repr(out.get("error"))
    for blob in (out["long"], short):
        assert blob.startswith(b"%PDF") and blob.rstrip().endswith(b"%%EOF")
