"""Typed figures with a JSON form: the records statistics and reports return (dataclasses that inherit `Record`).

Code reads a record's attributes. Its JSON form, `to_dict()`, is what `--json` prints and the store keeps: each field
under its own name, in declaration order; nested dataclasses (records, or the store's rows), lists and dicts converted
the same way. A field declared with `field(metadata=FLAT)` spreads its entries into the parent instead (a group's
estimates sit beside its name and size, as `{"group": ..., "n": ..., "cohen_kappa": {...}}`); one declared with
`field(metadata=OMIT_NONE)` is left out while it is None (a key some entries of a JSON form have and others do not).
`record["field"]` reads the JSON form of one field: the shape scripts and tests check.
"""

from __future__ import annotations

import dataclasses
from typing import Any

_FLAT = "flatten"
FLAT = {_FLAT: True}  # dataclasses.field(metadata=FLAT): the field's JSON form (a dict) spreads into its parent
_OMIT_NONE = "omit_none"
OMIT_NONE = {_OMIT_NONE: True}  # dataclasses.field(metadata=OMIT_NONE): no key in the JSON form while it is None


def json_form(value: Any) -> Any:
    """`value` as JSON-ready data (see the module docstring); anything but dataclasses, lists, tuples and dicts as is."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            raw = getattr(value, f.name)
            if raw is None and f.metadata.get(_OMIT_NONE):
                continue
            item = json_form(raw)
            if f.metadata.get(_FLAT):
                out.update(item)
            else:
                out[f.name] = item
        return out
    if isinstance(value, (list, tuple)):
        return [json_form(v) for v in value]
    if isinstance(value, dict):
        return {k: json_form(v) for k, v in value.items()}
    return value


class Record:
    """Base of typed figures: `to_dict()` is the JSON form, `record[key]` one field of it."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = json_form(self)
        return out

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]
