"""The pages' studies that the embed tests draw every chart of: one with evidence and perf, one of CPU counts."""

from tests.pages.test_evidence_pages import evidence_study  # noqa: F401 (a fixture)
from tests.pages.test_variant_study_pages import cpu_study  # noqa: F401 (a fixture)
