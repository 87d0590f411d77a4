"""Composite faults (DESIGN section 7), verified per component on the extractors' readings.

A composite text carries k planned components. It is admitted only when

1. the mechanical text checks hold for k faults at once (:func:`mechanical_composite`: the
   budget grows with k; no internal syntax, meta-commentary or leaked answer identifier);
2. each extractor's reading derives exactly the planned components, no fewer and no more
   (``composite:component_missing`` / ``composite:unplanned_fault``), and no requirement is said
   only inside the off-topic passage (``composite:value_inside_off_topic``);
3. both readings read every component alike, and every component is admitted on its own by the
   single-fault rule of its class;
4. the merged reading (every component's reading applied to the truth at once) is executed and
   recorded; its failure is recorded, not fatal, unless no component reading was executed at all
   (``composite:no_executed_reading``).

Steps 2-4 are :mod:`miscue.verifiers.composite.readings`. Codes of single-fault rules keep their
stage prefix (``text:``, ``agree:``, ``admit:``) with the component named in the detail;
whole-message rules are ``composite:`` codes, recorded at the stage they belong to.
"""

from miscue.verifiers.composite.merged import merged_reading
from miscue.verifiers.composite.readings import components_match, verify_composite_reading
from miscue.verifiers.composite.text import mechanical_composite
from miscue.verifiers.composite.verdict import ComponentResult, CompositeResult, composite_verdict, planned_key

__all__ = ["ComponentResult", "CompositeResult", "components_match", "composite_verdict", "mechanical_composite",
           "merged_reading", "planned_key", "verify_composite_reading"]
