"""The offline writer's off-topic chatter says nothing a grounded reader could take for a value:
no sentence carries one of the tau2 hosts' value forms ("quiet" is a keyboard's switch type,
"deep" a skin tone), so a passage in front of a request cannot restate or blur its values."""

from __future__ import annotations

import re

from miscue.adapters.tau2 import forms
from miscue.offline.writer.chatter import TOPICS


def test_no_chatter_sentence_carries_a_host_value_form():
    value_forms = {f.lower() for table in (forms.VALUE_SYNONYMS, forms.SYNONYMS, forms.CABINS, forms.REASONS)
                   for said in table.values() for f in said if len(f) > 2}
    hits = []
    for topic, sentences in TOPICS.items():
        for s in sentences:
            plain = " " + re.sub(r"[^a-z0-9% ]", " ", s.lower()) + " "
            hits += [(topic, f, s) for f in value_forms if f" {f} " in plain]
    assert not hits
