"""Versioned, immutable corpora (DESIGN section 9): tables, versions, publishing, verification,
regeneration's carry-over rule, the datasheet, and the graph and run ledgers as Parquet.

A published version is ``artifacts/corpora/<version>/``: one Parquet file per table of
:data:`TABLES`, ``manifest.json`` and ``datasheet.md``; it never changes after publication.
:func:`export_version` writes one in the Hugging Face ``datasets`` layout.
"""

from miscue.corpus.datasheet import COLUMN_DOCS, datasheet
from miscue.corpus.export import Export, export_version
from miscue.corpus.publish import publish, rename_noreplace, sweep_staging
from miscue.corpus.regenerate import PER_TYPE_TABLES, carried_over
from miscue.corpus.tables import (PROVENANCE_COLUMNS, RECORDS, REQUIRED_TABLES, SCHEMAS, SORT_KEYS, TABLES, arrow_schema,
                                  content_hash_table, row_json, table)
from miscue.corpus.verify import Verification, verify_corpus
from miscue.corpus.versions import (CORPORA_DIR, FORMAT, STAGING_DIR, VERSION_GLOB, VERSION_RE, UnknownVersion,
                                    VersionExists, added_columns, content_hashes, corpora_root, latest, manifest,
                                    next_version, read_table, renamed_columns, resolve, same_content, version_dir, versions)
from miscue.errors import CorpusError

__all__ = [
    "COLUMN_DOCS", "CORPORA_DIR", "FORMAT", "PER_TYPE_TABLES", "PROVENANCE_COLUMNS", "RECORDS", "REQUIRED_TABLES",
    "SCHEMAS", "SORT_KEYS", "STAGING_DIR", "TABLES", "VERSION_GLOB", "VERSION_RE", "CorpusError", "Export",
    "UnknownVersion", "Verification", "VersionExists", "added_columns", "arrow_schema", "carried_over", "content_hash_table",
    "content_hashes", "corpora_root", "datasheet", "export_version", "latest", "manifest", "next_version", "publish",
    "read_table", "rename_noreplace", "renamed_columns", "resolve", "row_json", "same_content", "sweep_staging",
    "table", "verify_corpus", "version_dir", "versions",
]
