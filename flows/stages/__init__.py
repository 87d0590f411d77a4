"""The stages of the application as plain Python (no Prefect): the attempt pipeline and the
single-fault, composite, verify, publish and regenerate stages that use it, and the per-benchmark
stages a build runs (:mod:`miscue.flows.prefect_flows` wraps them as Prefect tasks)."""
