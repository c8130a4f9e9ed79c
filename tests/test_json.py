"""``copy_json``: a deep copy, whatever the value holds."""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any

from steadyflow._json import copy_json


def test_a_copy_of_decoded_json_shares_nothing_that_can_change() -> None:
    original: dict[str, Any] = {"a": 1, "b": [1, {"c": "d"}], "e": None, "f": 1.5, "g": True}
    copied = copy_json(original)
    assert copied == original
    copied["b"][1]["c"] = "changed"
    copied["b"].append(2)
    copied["new"] = 1
    assert original == {"a": 1, "b": [1, {"c": "d"}], "e": None, "f": 1.5, "g": True}


class Box:
    def __init__(self, items: list[int]) -> None:
        self.items = items


def test_values_that_are_not_plain_json_are_deep_copied_as_they_are() -> None:
    box = Box([1])
    ordered = OrderedDict(x=[1])
    original = {"box": box, "ordered": ordered, "pair": (1, [2])}
    copied = copy_json(original)
    assert type(copied["ordered"]) is OrderedDict
    assert copied["box"] is not box and copied["box"].items == [1]
    copied["box"].items.append(2)
    copied["ordered"]["x"].append(2)
    copied["pair"][1].append(3)
    assert box.items == [1] and ordered["x"] == [1] and original["pair"] == (1, [2])
    assert copy_json(original)["pair"] == copy.deepcopy(original)["pair"]
