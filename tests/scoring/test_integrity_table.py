"""Every exploit class has a defence and adversarial evidence that exists; docs/integrity.md is current."""

import ast
import re
from pathlib import Path

from scoring.integrity import CLASSES, markdown

REPO = Path(__file__).resolve().parents[2]
# The ids of shared/INTEGRITY.md (read from it when the shared folder sits beside the checkout).
KNOWN_IDS = [
    "X01",
    "X02",
    "X03",
    "X04",
    "X05",
    "X06",
    "X10",
    "X11",
    "X12",
    "X13",
    "X14",
    "X15",
    "X20",
    "X21",
    "X22",
    "X23",
    "X24",
    "X25",
]


def shared_ids() -> list[str]:
    path = REPO.parent / "shared" / "INTEGRITY.md"
    if not path.is_file():
        return KNOWN_IDS
    return sorted(set(re.findall(r"^- (X\d\d) ", path.read_text(), flags=re.M)))


def test_every_class_of_integrity_md_has_a_defence_with_evidence():
    declared = [d.class_id for d in CLASSES]
    assert sorted(declared) == sorted(set(declared)), "a class is declared twice"
    assert set(shared_ids()) <= set(declared)
    assert set(KNOWN_IDS) <= set(declared)
    for defence in CLASSES:
        assert defence.evidence, f"{defence.class_id} has no adversarial evidence"


def test_every_piece_of_evidence_exists():
    for defence in CLASSES:
        for item in defence.evidence:
            path_text, _, test_part = item.partition("::")
            path = REPO / path_text
            assert path.is_file(), f"{defence.class_id}: {path_text} does not exist"
            if not test_part:
                assert "EXPECTED" in path.read_text(), f"{defence.class_id}: {path_text} declares no EXPECTED"
                continue
            function, _, case = test_part.partition("[")
            tree = ast.parse(path.read_text())
            names = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
            assert function in names, f"{defence.class_id}: {function} is not defined in {path_text}"
            if case:
                constants = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)}
                assert case.rstrip("]") in constants, f"{defence.class_id}: case {case} not found in {path_text}"


def test_the_generated_table_is_current():
    assert (REPO / "docs" / "integrity.md").read_text() == markdown(), (
        "run: python -m scoring.integrity > docs/integrity.md"
    )
