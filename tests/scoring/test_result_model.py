"""The result format written once (scoring/result_model.py): the committed schema and docs/results.md's field table
are what the models give, the generated schema accepts every committed result and refuses broken ones, and the
first pass of the checks (scoring/result_fields.py) reads its types from the same models."""

import copy
import dataclasses
import json
import subprocess
import sys

from typing import Annotated, Literal

import pytest
from jsonschema import Draft202012Validator

from scoring.dataclass_schema import Rule, documented, field_table, json_schema, model_fields
from scoring.result import result_text
from scoring.result_fields import check_fields
from scoring.result_model import (
    DOCS_PATH,
    SCHEMA_PATH,
    TABLE_BEGIN,
    TABLE_END,
    Agent,
    JudgeClock,
    Result,
    docs_with_table,
    result_schema,
    schema_text,
    table_text,
)
from tests.scoring.corrupted_results import REPO, RESCORED_AGENT, template
from tests.scoring.test_result_schema import committed_results


def all_models(root=Result) -> list[type]:
    found, todo = [], [root]
    while todo:
        model = todo.pop()
        if model in found:
            continue
        found.append(model)
        for _, hint in model_fields(model):
            todo += [t for t in _types_in(hint) if dataclasses.is_dataclass(t)]
    return found


def _types_in(hint):
    yield hint
    for arg in getattr(hint, "__args__", ()) or ():
        yield from _types_in(arg)
    if hasattr(hint, "__origin__"):
        yield from _types_in(hint.__origin__)


def test_the_committed_schema_is_the_one_the_models_give():
    assert SCHEMA_PATH.read_text() == schema_text(), (
        "scoring/schema/ceiling.result-1.schema.json differs from scoring/result_model.py: run "
        "`python -m scoring.result_model write` and commit both"
    )


def test_the_docs_field_table_is_the_one_the_models_give():
    docs = DOCS_PATH.read_text()
    assert docs.count(TABLE_BEGIN) == 1 and docs.count(TABLE_END) == 1
    assert docs_with_table(docs) == docs, (
        "docs/results.md's field table differs from scoring/result_model.py: run `python -m scoring.result_model "
        "write` and commit both"
    )
    assert table_text().count("\n") > 150  # every field of every model, one row each


def test_every_field_has_one_line_of_documentation():
    for model in all_models():
        assert model.__doc__ and model.__doc__.strip(), model
        for model_field, _ in model_fields(model):
            doc = model_field.metadata.get("doc")
            assert doc and doc.strip() and "\n" not in doc, f"{model.__name__}.{model_field.name}"


def test_the_generated_schema_is_draft_2020_12_and_accepts_every_committed_result():
    validator = Draft202012Validator(result_schema())
    Draft202012Validator.check_schema(result_schema())
    results = committed_results()
    assert len(results) > 800
    broken = [
        f"{path.relative_to(REPO)}: {error.message}" for path, data in results for error in validator.iter_errors(data)
    ]
    assert not broken, broken[:5]


def _rescored(data):
    data["agent"] = copy.deepcopy(RESCORED_AGENT)
    return data


# Each: a change to a real committed result, and whether the generated schema must accept it.
VARIANTS = [
    ("an unknown top-level field (later scorers add fields)", lambda d: d.update(added_later=1), True),
    ("a house kernel's agent is null", lambda d: d.update(agent=None), True),
    ("a re-scored run's agent", _rescored, True),
    ("a re-scored run without its published verdict", lambda d: (_rescored(d), d["agent"].pop("published")), False),
    ("an agent without a model", lambda d: d.update(agent={"harness": "codex"}), False),
    ("an agent whose harness is blank", lambda d: d.update(agent={"harness": " ", "model": "m"}), False),
    ("no systems", lambda d: d.update(systems=[]), False),
    ("systems[0] is a reference line", lambda d: d["systems"][0].update(role="eager"), False),
    ("a shape count that is a bool", lambda d: d["systems"][0]["shapes"][0].update(flops=True), False),
    ("a negative byte count", lambda d: d["shapes"][0].update(bytes_moved=-1), False),
    ("an untimed shape: timing null", lambda d: d["systems"][0]["shapes"][0].update(timing=None), True),
    ("a passed shape above the roofline", lambda d: d["systems"][0]["shapes"][0].update(fraction=1.3), False),
    (
        "a rejected shape above the roofline",
        lambda d: d["systems"][0]["shapes"][0].update(fraction=16.1, status="rejected"),
        True,
    ),
    ("an unknown bound", lambda d: d["systems"][0]["shapes"][0].update(bound="latency"), False),
    ("a peak row with no TFLOPS", lambda d: d["hardware"]["peak"].update(tflops={}), False),
    ("a score null for a set with no shapes", lambda d: d["score"].update(held_out_fraction=None), True),
    ("a score above 1", lambda d: d["score"].update(visible_fraction=1.01), False),
    (
        "a failure of an unknown class",
        lambda d: d["systems"][0].update(failure={"class": "slow", "label": "x", "unseen_only": False}),
        False,
    ),
    (
        "a judge_clock with a key added later (open)",
        lambda d: d["systems"][0]["shapes"][0].update(judge_clock={"outcome": "passed", "new_key_us": 1.0}),
        True,
    ),
    (
        "a judge_clock time as text",
        lambda d: d["systems"][0]["shapes"][0].update(judge_clock={"host_ms_median": "slow"}),
        False,
    ),
    ("a secret seed that is not hex", lambda d: d["seeds"].update(secret="xyz"), False),
    ("a run id that climbs out of its folder", lambda d: d.update(run_id="../x"), False),
]


@pytest.mark.parametrize("name, change, accepted", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_the_generated_schema_accepts_or_refuses_each_variant(name, change, accepted):
    data = template()
    change(data)
    errors = list(Draft202012Validator(result_schema()).iter_errors(data))
    assert (not errors) == accepted, [e.message for e in errors]


def test_a_model_used_only_as_null_or_object_names_the_field_inside_it():
    """agent is `Agent | None` everywhere: null sits in its definition, so an error names agent.source.commit rather
    than 'agent is not valid under any of the given schemas'."""
    schema = result_schema()
    assert schema["$defs"]["agent"]["type"] == ["object", "null"]
    data = _rescored(template())
    data["agent"]["source"]["commit"] = "unknown"
    (error,) = Draft202012Validator(schema).iter_errors(data)
    assert list(error.absolute_path) == ["agent", "source", "commit"]


def test_judge_clock_is_an_open_record_of_known_optional_keys():
    schema = result_schema()["$defs"]["judge_clock"]
    assert "required" not in schema and "additionalProperties" not in schema
    assert {f.name for f in dataclasses.fields(JudgeClock)} <= set(schema["properties"])


def test_the_field_checks_read_their_types_from_the_models():
    """A field the models make optional-but-not-null is refused as null by the first pass too (it used to restate
    the types by hand, and let such a null through)."""
    data = template()
    data["systems"][0]["shapes"][0]["check"] = None
    assert [i.field for i in check_fields(data, "x.json")] == ["systems[0].shapes[0].check"]
    data = template()
    data["systems"][0]["shapes"][0]["bound"] = "latency"
    issues = check_fields(data, "x.json")
    assert [i.field for i in issues] == ["systems[0].shapes[0].bound"] and "is not one of compute, memory" in issues[
        0
    ].problem


@dataclasses.dataclass(frozen=True, kw_only=True)
class Inner:
    """An inner record."""

    size: int = documented("a size", required=True)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Outer:
    """An outer record."""

    name: str = documented("its name", required=True)
    kind: Literal["a", "b"] = documented("its kind")
    inner: Inner | None = documented("the inner record, or null")
    inners: list[Inner] = documented("more of them")
    ratio: Annotated[float, Rule(exclusiveMinimum=0)] = documented("a divisor | a ratio")


def test_the_generator_on_a_small_model():
    schema = json_schema(Outer, {"title": "t"})
    assert schema["title"] == "t" and schema["type"] == "object" and schema["required"] == ["name"]
    assert schema["properties"]["kind"] == {"enum": ["a", "b"], "description": "its kind"}
    # Inner is also used in a list, where null is not allowed: the null goes beside the reference.
    assert schema["properties"]["inner"] == {
        "anyOf": [{"$ref": "#/$defs/inner"}, {"type": "null"}],
        "description": "the inner record, or null",
    }
    assert schema["$defs"]["inner"]["type"] == "object"
    assert schema["properties"]["ratio"] == {
        "type": "number",
        "exclusiveMinimum": 0,
        "description": "a divisor | a ratio",
    }
    assert field_table(Outer)[2:] == [
        "| `name` | string | yes | its name |",
        "| `kind` | one of `a`, `b` |  | its kind |",
        "| `inner` | inner or null |  | the inner record, or null |",
        "| `inner.size` | integer | yes | a size |",
        "| `inners` | list of inner |  | more of them |",
        "| `ratio` | number > 0 |  | a divisor \\| a ratio |",
    ]


def test_agent_keeps_the_provenance_triple_together():
    assert Agent.SCHEMA_RULES["dependentRequired"]["source"] == ["rescored_from", "published"]


def test_the_command_prints_the_schema_and_the_table_and_refuses_anything_else():
    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "scoring.result_model", *args],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    assert json.loads(run("schema").stdout) == result_schema()
    assert run("table").stdout == table_text()
    helped = run("help")
    assert helped.returncode == 0 and "python -m scoring.result_model write" in helped.stdout
    wrong = run("frobnicate")
    assert wrong.returncode == 2 and wrong.stderr.startswith("error: ")


def _rebuilt_through_the_models(data: dict) -> dict:
    """A result's parts put back through the models the way scoring/run.py builds a new one."""
    from scoring import result_model as model
    from scoring.dataclass_schema import to_json

    hardware = dict(data["hardware"], peak=model.Peak(**data["hardware"]["peak"]))
    return to_json(
        model.Result(
            **{
                key: data[key]
                for key in (
                    "schema",
                    "run_id",
                    "created_utc",
                    "command",
                    "config",
                    "agent",
                    "systems",
                    "score",
                    "status",
                )
            },
            ceiling=model.Ceiling(**data["ceiling"]),
            problem=model.Problem(**data["problem"]),
            hardware=model.Hardware(**hardware),
            seeds=model.Seeds(**data["seeds"]),
            shapes=[model.ShapeDefinition(**shape) for shape in data["shapes"]],
        )
    )


def test_a_result_built_through_the_models_is_byte_for_byte_the_file_the_scorer_wrote():
    """The writer's keys and their order are the models': every committed result of the current layout, rebuilt
    from its parts, dumps to the same bytes."""
    results = committed_results()
    assert len(results) > 800
    for path, data in results:
        assert result_text(_rebuilt_through_the_models(data)) + "\n" == path.read_text(), path


def test_to_json_leaves_out_absent_fields_and_keeps_null_ones():
    from scoring.dataclass_schema import ABSENT, to_json
    from scoring.result_model import Failure

    failure = Failure(class_="timeout", label="timed out", unseen_only=False, detail=None)
    assert failure.shapes is ABSENT
    assert to_json(failure) == {"class": "timeout", "label": "timed out", "unseen_only": False, "detail": None}


def test_the_run_writes_hardware_as_the_detected_facts_and_the_host():
    import platform

    from scoring.hardware import Hardware as DetectedHardware
    from scoring.hardware import Peak as DetectedPeak
    from scoring.dataclass_schema import to_json
    from scoring.run import _hardware_model

    detected = DetectedHardware(
        "gpu",
        "NVIDIA H100 80GB HBM3",
        "cuda:0",
        132,
        52428800,
        1980,
        2619,
        85520809984,
        "570.1",
        "12.8",
        "2.7.0",
        "3.3.0",
        "3.11.7",
        DetectedPeak("h100_sxm", "H100 SXM", "peaks.toml", {"bf16": 989.0}, 3350.0, True),
        ("a note",),
    )
    written = to_json(_hardware_model(detected))
    assert json.dumps(written) == json.dumps({**detected.as_dict(), "host": platform.node()})
