"""``miscue export``: a published version in the Hugging Face datasets layout, loaded back with the
real ``datasets`` library offline (no network is reachable; HF_DATASETS_OFFLINE / HF_HUB_OFFLINE)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from typer.testing import CliRunner

from support import synthetic_corpus as syn

from miscue.flows.cli import app
from miscue import corpus
from miscue.canonical import canonical_json
from miscue.corpus.export import size_category

runner = CliRunner()


def two_split_tables():
    """The synthetic corpus with its samples in two task splits (one ``train``, two ``test``)."""
    rows = syn.rows()
    rows["samples"][0]["split"] = "train"
    return {name: corpus.table(name, r) for name, r in rows.items()}


def tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def front_matter(card: str) -> dict:
    assert card.startswith("---\n")
    return yaml.safe_load(card.split("---\n", 2)[1])


@pytest.fixture()
def hf_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    import datasets

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True, raising=False)
    return datasets


def test_export_loads_with_datasets_config_by_config(tmp_path, hf_offline):
    art, out = tmp_path / "artifacts", tmp_path / "hf" / "miscue-v0001"
    syn.publish(art, tbls=two_split_tables())
    res = runner.invoke(app, ["export", "v0001", str(out), "--license", "cc-by-4.0", "--json", "--artifacts", str(art)])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    man = corpus.manifest(art, "v0001")
    assert set(summary["configs"]) == set(corpus.TABLES)
    assert summary["configs"]["samples"] == {"test": 2, "train": 1}  # per task split
    assert summary["configs"]["attempts"] == {"train": len(syn.rows()["attempts"])}  # no split column: one train split

    # the card: YAML front matter that parses, with configs, license, categories, size, name
    card = (out / "README.md").read_text()
    meta = front_matter(card)
    assert meta["pretty_name"] == "miscue corpus v0001" and meta["license"] == "cc-by-4.0"
    assert meta["task_categories"] and meta["size_categories"] == ["n<1K"]
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert list(configs) == list(corpus.TABLES) and configs["samples"].get("default") is True
    for name, c in configs.items():
        assert {f["split"] for f in c["data_files"]} == set(summary["configs"][name])
        assert all((out / f["path"]).is_file() and f["path"].startswith(f"data/{name}/") for f in c["data_files"])
    # the datasheet's content, the provenance and the hashes are in the card; the manifest is copied as is
    sheet = (art / "corpora" / "v0001" / "datasheet.md").read_text()
    assert "## Limits" in sheet and "### Limits" in card and "offline baselines" in card
    assert all(m["content_hash"] in card for m in man["tables"].values())
    assert man["config_hash"] in card and man["files"]["samples.parquet"] in card
    assert (out / "manifest.json").read_bytes() == (art / "corpora" / "v0001" / "manifest.json").read_bytes()
    assert tree(out) == summary["files"]

    # every config loads with datasets, offline, with the corpus's rows
    datasets = hf_offline
    assert datasets.get_dataset_config_names(str(out)) == list(corpus.TABLES)
    for name in corpus.TABLES:
        ds = datasets.load_dataset(str(out), name, cache_dir=str(tmp_path / "hf-cache"))
        assert {s: d.num_rows for s, d in ds.items()} == summary["configs"][name], name
        assert sum(d.num_rows for d in ds.values()) == man["row_counts"][name]
        published = corpus.read_table(art, "v0001", name).to_pylist()
        loaded = [row for d in ds.values() for row in d]
        assert sorted(map(canonical_json, loaded)) == sorted(map(canonical_json, published)), name
    samples = datasets.load_dataset(str(out), "samples", cache_dir=str(tmp_path / "hf-cache"))
    assert sorted(samples["train"]["sample_id"]) == ["s1"] and sorted(samples["test"]["sample_id"]) == ["s2", "s3"]
    assert samples["test"][0]["shift_options"][0]["operator"] == "relax"


def test_export_refuses_a_non_empty_directory_and_writes_nothing(tmp_path):
    art = tmp_path / "artifacts"
    syn.publish(art)
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine\n")
    as_file = tmp_path / "a-file"
    as_file.write_text("x")
    before = tree(tmp_path)
    for dest in (full, as_file):
        res = runner.invoke(app, ["export", "v0001", str(dest), "--artifacts", str(art)])
        assert res.exit_code == 2, res.output
        assert "nothing written" in res.output and len(res.output.strip().splitlines()) == 1
    assert tree(tmp_path) == before and sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "artifacts", "full"]
    # an unknown version is bad input too; an empty directory is fine
    res = runner.invoke(app, ["export", "v0042", str(tmp_path / "new"), "--artifacts", str(art)])
    assert res.exit_code == 2 and not (tmp_path / "new").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    res = runner.invoke(app, ["export", "latest", str(empty), "--artifacts", str(art)])
    assert res.exit_code == 0, res.output
    assert pq.read_table(empty / "data" / "samples" / "test-00000-of-00001.parquet").num_rows == 3


def test_size_categories():
    assert [size_category(n) for n in (0, 999, 1000, 25_000, 2_000_000)] == ["n<1K", "n<1K", "1K<n<10K", "10K<n<100K", "1M<n<10M"]


def test_a_table_without_rows_is_listed_but_is_no_config(tmp_path, hf_offline):
    art, out = tmp_path / "artifacts", tmp_path / "out"
    rows = syn.rows()
    rows["samples"] = []
    syn.publish(art, tbls={name: corpus.table(name, r) for name, r in rows.items()})
    res = runner.invoke(app, ["export", "v0001", str(out), "--json", "--artifacts", str(art)])
    assert res.exit_code == 0, res.output
    card = (out / "README.md").read_text()
    assert "samples" not in {c["config_name"] for c in front_matter(card)["configs"]}
    assert "| `samples` | none: the table has no rows |" in card
    ds = hf_offline.load_dataset(str(out), "attempts", cache_dir=str(tmp_path / "hf-cache"))
    assert ds["train"].num_rows == len(rows["attempts"])
