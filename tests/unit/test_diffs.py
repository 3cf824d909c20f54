"""diffs.split_diff: a PR's whole `git diff` into the per-file rows REST's /files gives."""
from __future__ import annotations

from prhub.sources.diffs import FileDiff, hunks_complete, split_diff, unquote

DIFF = """diff --git a/pkg/core.py b/pkg/core.py
index 83db48f..bf269f4 100644
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -1,3 +1,4 @@
 import os
-OLD = 1
+NEW = 2
+# TODO: remove
{space}
@@ -10 +11 @@ def f():
-    return 1
\\ No newline at end of file
+    return 2
\\ No newline at end of file
diff --git a/docs/guide.md b/docs/guide.md
new file mode 100644
index 0000000..e69de29
--- /dev/null
+++ b/docs/guide.md
@@ -0,0 +1,2 @@
+# Guide
+diff --git inside a file is just text
diff --git a/old/name.py b/new/name.py
similarity index 95%
rename from old/name.py
rename to new/name.py
index 1111111..2222222 100644
--- a/old/name.py
+++ b/new/name.py
@@ -2 +2 @@
-x = 1
+x = 2
diff --git a/moved.txt b/elsewhere/moved.txt
similarity index 100%
rename from moved.txt
rename to elsewhere/moved.txt
diff --git a/img/logo.png b/img/logo.png
new file mode 100644
index 0000000..3333333
Binary files /dev/null and b/img/logo.png differ
diff --git a/gone.py b/gone.py
deleted file mode 100644
index 4444444..0000000
--- a/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-print("bye")
diff --git a/with space.py b/with space.py
index 5555555..6666666 100644
--- a/with space.py\t
+++ b/with space.py\t
@@ -1 +1 @@
-a
+b
diff --git "a/caf\\303\\251.py" "b/caf\\303\\251.py"
index 7777777..8888888 100644
--- "a/caf\\303\\251.py"
+++ "b/caf\\303\\251.py"
@@ -1 +1 @@
-c
+d
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
""".replace("{space}", " ")  # a blank context line is one space: spelled out so editors keep it


def test_every_kind_of_file_comes_out_as_rest_would_list_it() -> None:
    files = split_diff(DIFF)
    assert [f.path for f in files] == ["pkg/core.py", "docs/guide.md", "new/name.py", "elsewhere/moved.txt",
                                      "img/logo.png", "gone.py", "with space.py", "café.py", "run.sh"]
    core = files[0]
    assert core.patch is not None and core.patch.startswith("@@ -1,3 +1,4 @@") and core.patch.endswith("file")
    assert core.patch.count("@@ -") == 2 and core.previous_path is None and not core.binary
    assert files[1].patch == "@@ -0,0 +1,2 @@\n+# Guide\n+diff --git inside a file is just text"
    assert files[2] == FileDiff("new/name.py", "old/name.py", False, "@@ -2 +2 @@\n-x = 1\n+x = 2")
    assert files[3] == FileDiff("elsewhere/moved.txt", "moved.txt", False, None)
    assert files[4] == FileDiff("img/logo.png", None, True, None)
    assert files[5] == FileDiff("gone.py", None, False, '@@ -1 +0,0 @@\n-print("bye")')
    assert files[6].patch == "@@ -1 +1 @@\n-a\n+b"
    assert files[8] == FileDiff("run.sh")


def test_quoted_paths_are_unquoted() -> None:
    assert unquote('"a/caf\\303\\251 \\"x\\"\\t.py"') == 'a/café "x"\t.py'
    assert unquote("plain/path.py") == "plain/path.py"


def test_a_diff_cut_off_in_transit_ends_inside_a_hunk() -> None:
    whole = split_diff(DIFF)
    assert all(hunks_complete(f.patch) for f in whole)
    cut = split_diff(DIFF[: DIFF.index("+NEW = 2")])
    assert not hunks_complete(cut[-1].patch)
    assert hunks_complete(None) and not hunks_complete("@@ -1,2 +1,2 @@\n a\n-b")


def test_an_empty_diff_has_no_files() -> None:
    assert split_diff("") == []
