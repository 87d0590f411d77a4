"""Writer replies as real models write them parse to the message they mean, and a JSON reply is read
tolerantly (miscue.model_replies, miscue.llm.parse_json_reply). Readings: tests/unit/test_reading.py."""

from __future__ import annotations

import pytest

from miscue.llm import parse_json_reply
from miscue.model_replies import parse_writer


def test_json_reply_tolerance():
    assert parse_json_reply('{"a": [1, 2,], "b": "x",}') == {"a": [1, 2], "b": "x"}
    assert parse_json_reply("{'a': None, 'b': True}") == {"a": None, "b": True}
    assert parse_json_reply("{'a': open('x')}") is None  # a literal only, never code
    assert parse_json_reply("{broken") is None


@pytest.mark.parametrize("reply, expected", [
    ("I'd like to return order #W1.", "I'd like to return order #W1."),
    ('"I\'d like to return order #W1."', "I'd like to return order #W1."),
    ("\u201cI'd like to return order #W1.\u201d", "I'd like to return order #W1."),
    ("Message: I'd like to return order #W1.", "I'd like to return order #W1."),
    ("```\nI'd like to return order #W1.\n```", "I'd like to return order #W1."),
    ('I said "hello" and "bye"', 'I said "hello" and "bye"'),
    (None, ""),
])
def test_writer_replies(reply, expected):
    assert parse_writer(reply) == expected
