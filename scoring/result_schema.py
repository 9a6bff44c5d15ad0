"""The published JSON Schema of `ceiling.result/1`, and a result checked against it as `Issue`s.

scoring/schema/ceiling.result-1.schema.json (draft 2020-12, shipped as package data) is for tools outside
this repository: which fields a result holds, their types, the statuses and failure classes, the numbers
that may be null. It is generated from the typed models (scoring/result_model.py); a test holds the
committed file to what they give. `python -m scoring.verify` checks every result against it after its own checks
(result_fields.py, result_checks.py), which also compare the values with each other, something a schema
cannot say. Torch-free; jsonschema is a core dependency, imported only by this module.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from scoring.result_fields import REGENERATE, Issue, short
from scoring.result_model import SCHEMA_PATH

SCHEMA_NAME = "scoring/schema/ceiling.result-1.schema.json"


@functools.cache
def validator():
    """The schema's validator, built once (the schema itself is checked against draft 2020-12 first)."""
    from jsonschema import Draft202012Validator

    schema = json.loads(SCHEMA_PATH.read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def field_path(parts) -> str:
    """A JSON path as the other checks write it: `systems[0].shapes[2].timing.median_ms`."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(file)"


def _issue(file: str, error) -> Issue:
    where = list(error.absolute_path)
    if error.validator in ("required", "dependentRequired"):
        # The error sits on the object; the field it names is the one a reader looks for.
        names = error.message.split("'")  # "'x' is a required property", "'x' is a dependency of 'y'"
        given = f" (it goes with {field_path(where + [names[3]])})" if error.validator == "dependentRequired" else ""
        return Issue(file, field_path(where + [names[1]]), f"is missing{given}", _fix(error))
    text, shown = error.message, repr(error.instance)
    if error.validator == "not":
        problem = f"is {short(error.instance)}, which the schema forbids here ({json.dumps(error.validator_value)})"
    elif text.startswith(shown + " "):
        problem = f"is {short(error.instance)}: {text[len(shown) + 1 :].removeprefix('is ')}"
    else:
        problem = text if len(text) <= 200 else text[:197] + "..."
    return Issue(file, field_path(where), problem, _fix(error))


def _fix(error) -> str:
    rule = "/".join(str(p) for p in error.schema_path)
    return f"the field must follow {SCHEMA_NAME} (rule {rule}; docs/results.md documents it): {REGENERATE}"


def schema_issues(data: Any, file: str) -> list[Issue]:
    """Every place where one parsed result breaks the published schema, ordered by field path."""
    errors = sorted(validator().iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    return [_issue(file, error) for error in errors]
