"""Did-you-mean suggestions in the one-line errors for unknown names (issue 28 item 8)."""

from __future__ import annotations

import pytest

from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog
from rtoslab.names import did_you_mean
from rtoslab.records import RtoslabError

CATALOG = Catalog()  # the checkout's folders alone


def test_a_part_of_a_name_or_a_misspelling_is_suggested() -> None:
    assert did_you_mean("yield", ["k_yield", "k_sem"]) == " (did you mean k_yield?)"
    assert did_you_mean("freerots", ["freertos", "rtic"]) == " (did you mean freertos?)"
    assert did_you_mean("pico", ["microbit", "mps2-an385"]) == ""


@pytest.mark.parametrize(("call", "message"), [
    (lambda: CATALOG.get_benchmark("yield"),
     r"^unknown benchmark 'yield' \(did you mean k_yield\?\): looked in "),
    (lambda: CATALOG.get_kernel("freerots"), r"^unknown kernel 'freerots' \(did you mean freertos"),
    (lambda: CATALOG.get_target("an385"),
     r"^unknown target 'an385' \(did you mean mps2-an385\?\): choose one of "),
    (lambda: BuildConfig(catalog=CATALOG, kernel="freertos",
                         kernel_options=(("configTIK_RATE_HZ", 1),)).resolved_kernel_options(),
     r"^unknown option 'configTIK_RATE_HZ' \(did you mean configTICK_RATE_HZ\?\) for kernel freertos"),
])
def test_unknown_names_get_a_suggestion(call: object, message: str) -> None:
    with pytest.raises(RtoslabError, match=message):
        call()  # type: ignore[operator]
