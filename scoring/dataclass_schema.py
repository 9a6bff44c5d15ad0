"""A JSON Schema (draft 2020-12) and a Markdown field table, both read off frozen dataclasses. Torch-free.

A file format is written once as dataclasses (scoring/result_model.py is the one this exists for); each field
carries its documentation and its rules in `field(metadata=...)` (`documented` builds that), so the schema
that tools outside the repository validate against and the table that docs show cannot drift from the
models. Stdlib only: the GPU machines, where the scorer runs, cannot install packages.

What a Python type becomes:
- `str`, `int`, `float`, `bool` -> string, integer, number, boolean; `Any` -> no rule;
- `X | None` -> X or null; `Literal[...]` -> enum; `list[X]` -> array of X; `dict[str, X]` -> object of X;
  `dict` -> any object;
- a dataclass -> `{"$ref": "#/$defs/<snake_case name>"}`, its definition holding every field as a property,
  `required` where `documented(required=True)`, extra properties allowed (later writers add fields);
- `Annotated[X, Rule(...)]` -> X's schema with the rule's keywords merged in (pattern, minimum, ...), and
  `Annotated[X, Rule(..., name="status")]` a definition of its own, referenced wherever it is used.
A dataclass's class-level `SCHEMA_RULES` (a dict) is merged into its definition: rules that relate its
fields (if/then, dependentRequired). A dataclass used only as `X | None` gets `null` in its definition's
type, so a validator names the broken field inside it rather than the whole "any of" alternative.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from dataclasses import field
from typing import Annotated, Any, Literal, Union

JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


class Rule:
    """JSON Schema keywords added to a type (`Annotated[int, Rule(minimum=0)]`); `name` makes it a definition.

    Hashed by identity: typing hashes a union's members, and the keywords may hold dicts."""

    def __init__(self, name: str | None = None, **keywords):
        self.name = name
        self.keywords = keywords


class _Absent:
    """The value of an optional field a model instance leaves out of its file (None would be written as null)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


def documented(doc: str, *, required: bool = False, key: str | None = None):
    """A model field: its one line of documentation, whether a file must hold it, and its JSON key if the
    Python name cannot be it (`class`). An optional field defaults to ABSENT: left out of the file."""
    metadata = {"doc": doc, "required": required, "key": key}
    return field(metadata=metadata) if required else field(default=ABSENT, metadata=metadata)


def to_json(value: Any) -> Any:
    """A model instance as the JSON value it is written as: its fields in definition order under their JSON keys,
    ABSENT ones left out, models inside converted too; dicts and lists are walked, anything else kept as is (a
    part built elsewhere may be given as the dict it already is)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            json_key(f): to_json(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if getattr(value, f.name) is not ABSENT
        }
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    return value


def def_name(cls: type) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


def json_key(model_field: dataclasses.Field) -> str:
    return model_field.metadata.get("key") or model_field.name


def model_fields(cls: type) -> list[tuple[dataclasses.Field, Any]]:
    """(field, resolved type with its Annotated rules) of a dataclass, in definition order."""
    hints = typing.get_type_hints(cls, include_extras=True)
    return [(f, hints[f.name]) for f in dataclasses.fields(cls)]


def split_optional(hint) -> tuple[Any, bool]:
    """(the type without None, whether None was allowed)."""
    if typing.get_origin(hint) in (Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) < len(typing.get_args(hint)):
            return (args[0] if len(args) == 1 else Union[tuple(args)]), True
    return hint, False


def plain_type(hint) -> tuple[Any, dict, bool]:
    """(the Python type under `Annotated` and `| None`, the keywords its rules add, whether None is allowed)."""
    hint, nullable = split_optional(hint)
    keywords: dict = {}
    while typing.get_origin(hint) is Annotated:
        hint, *rules = typing.get_args(hint)
        for rule in rules:
            keywords.update(rule.keywords)
        hint, inner_nullable = split_optional(hint)
        nullable = nullable or inner_nullable
    return hint, keywords, nullable


class SchemaBuilder:
    """Builds `$defs` while it walks the types from one root dataclass."""

    def __init__(self, root: type):
        self.root = root
        self.defs: dict[str, dict] = {}
        self.always_nullable = self._dataclasses_used_only_as_optional(root)

    def _dataclasses_used_only_as_optional(self, root: type) -> set[type]:
        uses: dict[type, set[bool]] = {}
        seen: set[type] = set()

        def visit(hint, optional: bool = False) -> None:
            hint, nullable = split_optional(hint)
            optional = optional or nullable
            if typing.get_origin(hint) is Annotated:
                return visit(typing.get_args(hint)[0], optional)
            if dataclasses.is_dataclass(hint):
                uses.setdefault(hint, set()).add(optional)
                if hint not in seen:
                    seen.add(hint)
                    for _, sub in model_fields(hint):
                        visit(sub)
                return None
            for arg in typing.get_args(hint):
                if arg is not Ellipsis and not isinstance(arg, str):
                    visit(arg)
            return None

        visit(root)
        return {cls for cls, kinds in uses.items() if kinds == {True}}

    def schema_of(self, hint) -> dict:
        hint, nullable = split_optional(hint)
        schema = self._non_null(hint)
        if not nullable or (dataclasses.is_dataclass(hint) and hint in self.always_nullable):
            return schema
        if isinstance(schema.get("type"), str):
            return {**schema, "type": [schema["type"], "null"]}
        return {"anyOf": [schema, {"type": "null"}]}

    def _non_null(self, hint) -> dict:
        if hint is Any:
            return {}
        if typing.get_origin(hint) is Annotated:
            base, *extras = typing.get_args(hint)
            schema = self.schema_of(base)
            for rule in extras:
                schema = {**schema, **rule.keywords}
                if rule.name:
                    self.defs.setdefault(rule.name, schema)
                    schema = {"$ref": f"#/$defs/{rule.name}"}
            return schema
        if hint in JSON_TYPES:
            return {"type": JSON_TYPES[hint]}
        if hint is dict:
            return {"type": "object"}
        if hint is list:
            return {"type": "array"}
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is Literal:
            return {"enum": list(args)}
        if origin is list:
            return {"type": "array", "items": self.schema_of(args[0])}
        if origin is dict:
            return {"type": "object", "additionalProperties": self.schema_of(args[1])}
        if dataclasses.is_dataclass(hint):
            name = def_name(hint)
            if name not in self.defs:
                self.defs[name] = {}  # reserved first: a model may refer to itself
                self.defs[name] = self.object_schema(hint)
            return {"$ref": f"#/$defs/{name}"}
        raise TypeError(
            f"{hint!r}: no JSON Schema for this type; use str, int, float, bool, Literal, list, dict, "
            "a dataclass or Annotated[..., Rule(...)]"
        )

    def object_schema(self, cls: type) -> dict:
        kind = ["object", "null"] if cls in self.always_nullable else "object"
        schema: dict = {"type": kind, "description": _first_line(cls.__doc__)}
        required = [json_key(f) for f, _ in model_fields(cls) if f.metadata.get("required")]
        if required:
            schema["required"] = required
        schema["properties"] = {
            json_key(f): {**self.schema_of(hint), "description": f.metadata["doc"]} for f, hint in model_fields(cls)
        }
        schema.update(getattr(cls, "SCHEMA_RULES", {}))
        return schema


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0] if text and text.strip() else ""


def json_schema(root: type, header: dict) -> dict:
    """The draft 2020-12 schema of `root`: `header` ($schema, $id, title, ...), root's own properties, `$defs`."""
    builder = SchemaBuilder(root)
    body = builder.object_schema(root)
    body.pop("description")
    return {**header, **body, "$defs": builder.defs}


def type_text(schema: dict) -> str:
    """A schema node as a reader says it: `number > 0 or null`, `one of a, b`, `list of shape`."""
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[1]
    if "const" in schema:
        return f"`{schema['const']}`"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(type_text(s) for s in schema["anyOf"])
    kinds = schema.get("type", "any")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    words = []
    for kind in kinds:
        if kind == "array":
            words.append("list of " + type_text(schema["items"]) if "items" in schema else "list")
        elif kind == "object" and isinstance(schema.get("additionalProperties"), dict):
            words.append("object of " + type_text(schema["additionalProperties"]))
        elif kind in ("integer", "number"):
            words.append(kind + _bounds(schema))
        else:
            words.append(kind)
    return " or ".join(words)


def _bounds(schema: dict) -> str:
    if "exclusiveMinimum" in schema:
        return f" > {schema['exclusiveMinimum']}"
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None and high < 2**62:
        return f" in {low}..{high}"
    return f" >= {low}" if low is not None else ""


def field_table(root: type, root_path: str = "") -> list[str]:
    """Markdown rows `| field | type | required | meaning |`, one per field, depth first from `root`; a model met a
    second time (`systems[].score`) is named, not repeated."""
    builder = SchemaBuilder(root)
    rows = ["| field | type | required | meaning |", "| --- | --- | --- | --- |"]
    shown: set[type] = set()

    def walk(cls: type, prefix: str) -> None:
        shown.add(cls)
        for model_field, hint in model_fields(cls):
            path = f"{prefix}{json_key(model_field)}"
            kind = type_text(builder.schema_of(hint))
            if split_optional(hint)[1] and "null" not in kind:  # a model used only as `X | None` holds the null itself
                kind += " or null"
            required = "yes" if model_field.metadata.get("required") else ""
            meaning = model_field.metadata["doc"].replace("|", "\\|")  # a bare | would end the cell
            rows.append(f"| `{path}` | {kind} | {required} | {meaning} |")
            for inner, suffix in _nested(hint):
                if inner in shown:
                    continue
                walk(inner, f"{path}{suffix}.")

    walk(root, root_path)
    return rows


def _nested(hint) -> list[tuple[type, str]]:
    """The dataclasses a field holds, with the path suffix that reaches them (`[]` through a list)."""
    hint, _ = split_optional(hint)
    if typing.get_origin(hint) is Annotated:
        return _nested(typing.get_args(hint)[0])
    if dataclasses.is_dataclass(hint):
        return [(hint, "")]
    if typing.get_origin(hint) is list:
        return [(cls, "[]" + suffix) for cls, suffix in _nested(typing.get_args(hint)[0])]
    return []
