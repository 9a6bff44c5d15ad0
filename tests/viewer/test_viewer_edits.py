"""Diff building: apply_patch text, shell heredocs, structured patches, and the changes view's
content tracking across several edits of one file."""

from viewer.changes import summarize
from viewer.edits import (
    edit_change,
    parse_apply_patch,
    shell_writes,
    structured_patch_diff,
    write_change,
)
from viewer.model import Event, FileChange


def test_apply_patch_add_update_move_delete():
    patch = (
        "*** Begin Patch\n*** Add File: a.py\n+x = 1\n+y = 2\n*** Update File: b.py\n*** Move to: c.py\n"
        "@@ def f():\n-    return 1\n+    return 2\n*** Delete File: d.py\n*** End Patch"
    )
    add, move, delete = parse_apply_patch(patch)
    assert (add.path, add.action, add.new_content) == ("a.py", "create", "x = 1\ny = 2\n")
    assert add.diff == "--- a/a.py\n+++ b/a.py\n@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n"
    assert (move.path, move.action, move.move_to) == ("c.py", "move", "c.py")
    assert move.diff == "--- a/b.py\n+++ b/c.py\n@@ def f():\n-    return 1\n+    return 2\n"
    assert move.replacements == (("    return 1\n", "    return 2\n"),)
    assert (delete.path, delete.action, delete.diff) == ("d.py", "delete", "--- a/d.py\n+++ /dev/null\n")


def test_heredoc_writes_in_their_common_spellings():
    assert [(c.path, c.new_content) for c in shell_writes("cat > out.py <<'EOF'\nprint(1)\nEOF")] == [
        ("out.py", "print(1)\n")
    ]
    assert [(c.path, c.new_content) for c in shell_writes('cat <<"END" > /tmp/x.txt\na\nb\nEND\necho done')] == [
        ("/tmp/x.txt", "a\nb\n")
    ]
    assert [(c.path, c.new_content) for c in shell_writes("tee k.cu <<EOF\n__global__ void k(){}\nEOF")] == [
        ("k.cu", "__global__ void k(){}\n")
    ]
    append = shell_writes("cat >> log.txt <<EOF\nmore\nEOF")
    assert (append[0].action, append[0].new_content, append[0].diff.splitlines()[-1]) == ("edit", None, "+more")
    assert shell_writes("echo hi > x.txt") == [] and shell_writes("cat <<EOF\nto stdout\nEOF") == []


def test_structured_patch_diff_text():
    hunks = [{"oldStart": 3, "oldLines": 1, "newStart": 3, "newLines": 2, "lines": ["-a", "+b", "+c"]}]
    assert structured_patch_diff("p.py", hunks) == "--- a/p.py\n+++ b/p.py\n@@ -3,1 +3,2 @@\n-a\n+b\n+c\n"
    assert structured_patch_diff("p.py", "garbage") == ""


def _event(n, *changes, is_error=False):
    return Event("tool", anchor=f"e{n}", changes=tuple(changes), is_error=is_error)


def test_changes_track_contents_through_write_then_edits():
    events = [
        _event(1, write_change("k.py", "a = 1\nb = 2\nc = 3\n", action="create")),
        _event(2, edit_change("k.py", "b = 2", "b = 20")),
        _event(3, edit_change("k.py", "missing", "x"), is_error=True),  # failed: ignored
        _event(4, edit_change("k.py", "c = 3", "c = 30")),
    ]
    (summary,) = summarize(events)
    assert summary.final_content == "a = 1\nb = 20\nc = 30\n"
    assert [c.anchor for c in summary.changes] == ["e1", "e2", "e4"]
    assert summary.combined_diff == "--- a/k.py\n+++ b/k.py\n@@ -0,0 +1,3 @@\n+a = 1\n+b = 20\n+c = 30\n"


def test_a_write_over_tracked_content_is_diffed_against_it():
    events = [
        _event(1, write_change("w.txt", "one\ntwo\n", action="create")),
        _event(2, write_change("w.txt", "one\n2\n")),
    ]
    (summary,) = summarize(events)
    assert summary.changes[1].diff == "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
    assert summary.final_content == "one\n2\n"


def test_unknown_starting_content_joins_the_diffs_and_leaves_final_content_unknown():
    events = [
        _event(1, edit_change("u.py", "x", "y")),
        _event(2, FileChange("u.py", "edit", "--- a/u.py\n+++ b/u.py\n@@ @@\n-y\n+z\n", "tool")),
    ]
    (summary,) = summarize(events)
    assert summary.final_content is None
    assert (
        summary.combined_diff == "--- a/u.py\n+++ b/u.py\n@@ -1 +1 @@\n-x\n+y\n--- a/u.py\n+++ b/u.py\n@@ @@\n-y\n+z\n"
    )
