"""A system's kernel names, stored once: the table a result file keeps instead of repeating names per shape.

The kernel record of a shape names the kernels the solution launched (demangled C++ names, often 400 characters
of template arguments each), and a system launches the same few kernels on most of its shapes. Written per
shape, those names were two fifths of the committed results' bytes, and every GPU call carries the tracked tree
(its limit counts it). So a result file holds each system's distinct names once, in `system.kernel_names`
(first-seen order), and each shape's `kernel_record.kernel_name_ids` indexes that table. In memory, while a run
is scored and audited, shapes carry the names themselves (`kernel_record.kernel_names`); the writer tabulates
(`tabulated`), and a reader who wants the names per shape expands (`expanded`). Both are pure and inverse:
expanded(tabulated(r)) == r for a result whose shapes hold names, and tabulating a tabulated result (a cached line
copied from an earlier file) changes nothing. Torch-free, stdlib-only.
"""

from __future__ import annotations

TABLE_KEY = "kernel_names"  # on the system: the distinct names
NAMES_KEY = "kernel_names"  # on a shape's kernel_record, in memory: the names themselves
IDS_KEY = "kernel_name_ids"  # on a shape's kernel_record, in a file: indices into the system's table


def _shape_names(shape: dict, table: list) -> list | None:
    """The names a shape's kernel record holds, from names or from ids into `table`; None when it holds neither."""
    record = shape.get("kernel_record")
    if not isinstance(record, dict):
        return None
    if isinstance(record.get(NAMES_KEY), list):
        return record[NAMES_KEY]
    ids = record.get(IDS_KEY)
    if isinstance(ids, list):
        try:
            return [table[i] for i in ids]
        except (IndexError, TypeError) as error:
            raise ValueError(
                f"kernel_record.{IDS_KEY} {ids!r} does not index the system's {TABLE_KEY} table "
                f"({len(table)} names): {error}"
            ) from None
    return None


def _with_record_field(shape: dict, drop: str, key: str, value: list) -> dict:
    """`shape` with its kernel_record's `drop` field replaced by `key`, at the same place in the record."""
    record = {}
    for name, item in shape["kernel_record"].items():
        if name == drop:
            record[key] = value
        elif name != key:
            record[name] = item
    return dict(shape, kernel_record=record)


def _tabulated_system(system: dict) -> dict:
    if not isinstance(system.get("shapes"), list):
        return system  # nothing indexes a table (a line that was not available has no shapes)
    table = system.get(TABLE_KEY) if isinstance(system.get(TABLE_KEY), list) else []
    names_in_order: list = []
    index: dict = {}
    shapes = []
    any_named = False
    for shape in system["shapes"]:
        names = _shape_names(shape, table) if isinstance(shape, dict) else None
        if names is None:
            shapes.append(shape)
            continue
        any_named = True
        for name in names:
            if name not in index:
                index[name] = len(names_in_order)
                names_in_order.append(name)
        drop = NAMES_KEY if NAMES_KEY in shape["kernel_record"] else IDS_KEY
        shapes.append(_with_record_field(shape, drop, IDS_KEY, [index[name] for name in names]))
    if not any_named and TABLE_KEY not in system:
        return system
    out = {}
    for key, value in system.items():
        if key == "shapes":
            out[TABLE_KEY] = names_in_order  # just above the shapes that index it
            out["shapes"] = shapes
        elif key != TABLE_KEY:
            out[key] = value
    return out


def _expanded_system(system: dict) -> dict:
    table = system.get(TABLE_KEY) if isinstance(system.get(TABLE_KEY), list) else []
    out = {key: value for key, value in system.items() if key != TABLE_KEY}
    if isinstance(system.get("shapes"), list):  # as in _tabulated_system: no shapes list, nothing indexes a table
        out["shapes"] = [_expanded_shape(shape, table) for shape in system["shapes"]]
    return out


def _expanded_shape(shape, table: list):
    record = shape.get("kernel_record") if isinstance(shape, dict) else None
    if isinstance(record, dict) and isinstance(record.get(IDS_KEY), list):
        return _with_record_field(shape, IDS_KEY, NAMES_KEY, _shape_names(shape, table))
    return shape


def tabulated(result: dict) -> dict:
    """`result` with each system's kernel names in one table and its shapes' records indexing it (the file form)."""
    systems = result.get("systems")
    if not isinstance(systems, list):
        return result
    return dict(result, systems=[_tabulated_system(s) if isinstance(s, dict) else s for s in systems])


def expanded(result: dict) -> dict:
    """`result` with each shape's kernel names written out in its record again (the in-memory form)."""
    systems = result.get("systems")
    if not isinstance(systems, list):
        return result
    return dict(result, systems=[_expanded_system(s) if isinstance(s, dict) else s for s in systems])
