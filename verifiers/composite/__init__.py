"""Per-component verification of composite faults (DESIGN section 7).

A composite text carries k planned components. It is admitted only when

1. the second pass (k >= 3 with a whole-message fault) repaired nothing: every content
   component's mark that the first pass carried is still in the final text
   (``composite:repaired_by_transform``);
2. the mechanical text checks hold for k faults at once (budget grows with k, every requirement
   no component touches is conveyed verbatim, each component's own mark is present);
3. both extractors' multi-flaw blind answers contain every planned component (class, and the
   assigned requirement for slot components), and no flaw outside the plan is found by both
   (``composite:component_missing`` / ``composite:unplanned_fault``);
4. no two components claim the same requirement or the same words, and nothing a component
   claims lies inside the off-topic passage (``composite:same_slot`` / ``composite:same_span``
   / ``composite:value_inside_off_topic``);
5. every component's targeted answers agree with each other and with the plan, and the
   component is admitted on its own by the single-fault rule of :func:`miscue.verifiers.admission.admit`;
6. the merged literal reading (every component's reading applied to the truth at once, built
   from the extractions) is executed and recorded; its failure is recorded, not fatal, unless no
   component reading was executed at all (``composite:no_executed_reading``).

On the reading path (:mod:`miscue.verifiers.composite.readings`) steps 2-5 read one reading per
extractor instead: the text gets the mechanical checks only, and the components are the departures
code derives from each reading.

Codes of single-fault rules keep their stage prefix (``text:``, ``agree:``, ``admit:``) with the
component named in the detail; whole-message rules are ``composite:`` codes, recorded at the
stage they belong to (a second-pass repair at ``write``, claims and unplanned faults at
``agree``, a composite with no executed reading at ``admit``).
"""

from miscue.verifiers.composite.extraction import (CompositeExtraction, Key, claims_conflict, flaw_of, found_key,
                                                   missing_components, planned_key, unplanned)
from miscue.verifiers.composite.merged import merged_reading
from miscue.verifiers.composite.readings import components_match, verify_composite_reading
from miscue.verifiers.composite.text import check_composite_text, mark_failure, mechanical_composite, repaired_by_transform
from miscue.verifiers.composite.verdict import ComponentResult, CompositeResult, verify_composite

__all__ = ["ComponentResult", "CompositeExtraction", "CompositeResult", "Key", "check_composite_text", "claims_conflict",
           "components_match", "flaw_of", "found_key", "mark_failure", "mechanical_composite", "merged_reading",
           "missing_components", "planned_key", "repaired_by_transform", "unplanned", "verify_composite",
           "verify_composite_reading"]
