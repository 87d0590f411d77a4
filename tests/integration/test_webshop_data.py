"""The WebShop adapter's host-data checks: malformed and missing files name file and field; the
streaming reader; the environment id follows the data."""

from __future__ import annotations

import copy
import io
import json

import pytest
from support.webshop_tiny import P1, P2, tiny_files, write_files
from typer.testing import CliRunner

from miscue.adapters.webshop import WebShopAdapter, iter_array, iter_object, read_value_at
from miscue.adapters.webshop.catalogue import Catalogue
from miscue.flows.cli import app
from miscue.host import HostDataError

@pytest.mark.parametrize(
    "mutate, file_part, field_part",
    [
        (lambda p, a, h: p[0].pop("query"), "items_shuffle_tiny.json", "'query'"),
        (lambda p, a, h: p[1].update(customization_options={"Color": "red"}), "items_shuffle_tiny.json",
         "customization_options.Color"),
        (lambda p, a, h: p[2].update(small_description=[1, 2]), "items_shuffle_tiny.json", "'small_description'"),
        (lambda p, a, h: p[0].update(pricing="$abc"), "items_shuffle_tiny.json", "'pricing'"),
        (lambda p, a, h: a[P2].update(attributes="waterproof"), "items_ins_v2_tiny.json", "'attributes'"),
        (lambda p, a, h: h[P1][0].pop("instruction_options"), "items_human_ins.json", "'instruction_options'"),
        (lambda p, a, h: h[P2][0].update(instruction_attributes="waterproof"), "items_human_ins.json",
         "'instruction_attributes'"),
    ],
)
def test_malformed_records_name_file_and_field(tmp_path, mutate, file_part, field_part):
    products, attrs, human = copy.deepcopy(tiny_files())
    mutate(products, attrs, human)
    data = write_files(tmp_path, products, attrs, human)
    with pytest.raises(HostDataError) as err:
        WebShopAdapter(data)
    assert file_part in str(err.value) and field_part in str(err.value)
    if "human" not in file_part:  # the files a child process parses for a large catalogue
        with pytest.raises(HostDataError) as err:
            Catalogue(data, parse_in_child=True)
        assert file_part in str(err.value) and field_part in str(err.value)


def test_missing_and_broken_files_name_file_and_field(tmp_path):
    with pytest.raises(HostDataError, match="directory not found.*field"):
        WebShopAdapter(tmp_path / "nowhere")
    d = write_files(tmp_path / "a", *tiny_files())
    (d / "items_human_ins.json").unlink()
    with pytest.raises(HostDataError, match=r"items_human_ins\.json: file not found \(field: <file>"):
        WebShopAdapter(d)
    d = write_files(tmp_path / "b", *tiny_files())
    (d / "items_ins_v2_tiny.json").unlink()
    with pytest.raises(HostDataError, match=r"items_ins_v2_tiny\.json: file not found \(field"):
        WebShopAdapter(d)
    d = write_files(tmp_path / "c", *tiny_files())
    text = (d / "items_shuffle_tiny.json").read_text()
    (d / "items_shuffle_tiny.json").write_text(text[: len(text) // 2])  # truncated download
    with pytest.raises(HostDataError, match=r"items_shuffle_tiny\.json: not valid JSON at byte \d+.*field: \[\d\]"):
        WebShopAdapter(d)
    with pytest.raises(HostDataError, match=r"items_shuffle_tiny\.json: not valid JSON at byte \d+.*field: \[\d\]"):
        Catalogue(d, parse_in_child=True)
    d = write_files(tmp_path / "d", *tiny_files())
    (d / "items_shuffle_tiny.json").write_text(json.dumps({"asin": P1}))
    with pytest.raises(HostDataError, match=r"items_shuffle_tiny\.json: the top level must be a JSON list \(field: <root>\)"):
        WebShopAdapter(d)
    d = write_files(tmp_path / "e", *tiny_files())
    (d / "items_human_ins.json").write_text("[]")
    with pytest.raises(HostDataError, match=r"items_human_ins\.json: top level: field '<root>'"):
        WebShopAdapter(d)


def test_streaming_reader_matches_json_and_offsets():
    records = [{"asin": f"B{i:09d}", "name": "Café crème ☕ " * (i % 4), "n": i, "f": 1.5} for i in range(60)]
    raw = ("[\n" + ",\n  ".join(json.dumps(r, ensure_ascii=bool(i % 2)) for i, r in enumerate(records)) + "\n]\n").encode()
    for chunk in (5, 7, 64, 1 << 20):  # chunk borders fall inside values and multi-byte characters
        got = list(iter_array(io.BytesIO(raw), chunk=chunk))
        assert [v for _, v in got] == records
        for offset, value in got:
            assert read_value_at(io.BytesIO(raw), offset, chunk=3) == value
    obj = {f"B{i:09d}": {"attributes": ["ünïcode", str(i)]} for i in range(30)}
    raw = json.dumps(obj, ensure_ascii=False, indent=2).encode()
    assert {k: v for _, k, v in iter_object(io.BytesIO(raw), chunk=11)} == obj


def test_environment_id_follows_the_data(tmp_path):
    a = WebShopAdapter(write_files(tmp_path / "a", *tiny_files()))
    products, attrs, human = tiny_files()
    products[0]["pricing"] = "$46.99"
    b = WebShopAdapter(write_files(tmp_path / "b", products, attrs, human))
    assert a.env_id != b.env_id and a.env_id.startswith("webshop:")
    hashes = a.input_hashes()
    assert set(hashes) == {"webshop/items_shuffle_tiny.json", "webshop/items_ins_v2_tiny.json", "webshop/items_human_ins.json",
                           "webshop/oracle.type_factor"}
    assert hashes["webshop/oracle.type_factor"] == a.type_factor == "heuristic-nouns@1"  # no spaCy model here
    assert WebShopAdapter(tmp_path / "a", type_factor="heuristic").env_id == a.env_id
    assert a.graph_config() == {"require_full_quota": True}
    assert WebShopAdapter(tmp_path / "a", require_full_quota=False).graph_config() == {"require_full_quota": False}


def test_streaming_reports_the_bytes_read(tmp_path):
    data = write_files(tmp_path / "ws", *tiny_files())
    seen: list[tuple[int, int]] = []
    WebShopAdapter(data, progress=lambda done, total: seen.append((done, total)))
    total = sum((data / name).stat().st_size for name in ("items_shuffle_tiny.json", "items_ins_v2_tiny.json"))
    assert seen and seen[-1] == (total, total)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))


def test_cli_graphs_reads_the_data_directory_it_is_given(tmp_path):
    data = write_files(tmp_path / "ws", *tiny_files())
    args = ["graphs", "--benchmark", "webshop", "--json", "--artifacts", str(tmp_path / "art")]
    res = CliRunner().invoke(app, args + ["--webshop-data", str(data)])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["tasks"] == len(WebShopAdapter(data).load_seeds())  # the tiny catalogue's goals, not the shipped ones
    missing = CliRunner().invoke(app, args + ["--webshop-data", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "nowhere" in missing.output
