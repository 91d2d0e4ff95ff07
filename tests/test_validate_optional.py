"""bmam/validate.py optional_identifier, pure: an optional id left out is none; given empty it is refused with a
message that says to leave it out (it said "sessionId is required", of an id that is not)."""

from __future__ import annotations

import pytest

from bmam import validate
from graph.errors import BadInput


def test_an_optional_id_left_out_is_none_and_given_is_an_identifier() -> None:
    assert validate.optional_identifier(None, field="sessionId") is None
    assert validate.optional_identifier(" s1 ", field="sessionId") == "s1"


@pytest.mark.parametrize("given", ["", "   ", "\t"])
def test_an_optional_id_given_empty_says_to_leave_it_out(given: str) -> None:
    with pytest.raises(BadInput) as err:
        validate.optional_identifier(given, field="deviceId")
    assert err.value.message == "deviceId must not be empty; leave it out for none"
    assert (err.value.code, err.value.field) == ("BAD_USER_INPUT", "deviceId")


def test_an_optional_id_given_is_checked_as_any_id() -> None:
    with pytest.raises(BadInput, match="longer than 256"):
        validate.optional_identifier("x" * 257, field="sessionId")
    with pytest.raises(BadInput, match="invisible"):
        validate.optional_identifier("s\u200b1", field="sessionId")


def test_a_required_id_given_empty_is_still_required() -> None:
    with pytest.raises(BadInput, match=r"^userId is required$"):
        validate.identifier("", field="userId")
