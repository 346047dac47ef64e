"""Packaging: the distribution's name, version, licence and type marker."""

import tomllib
from pathlib import Path

import verify

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_distribution_name_is_not_the_unrelated_verify_package():
    # "verify" on the package index is an unrelated assertion library.
    assert PROJECT["project"]["name"] == "cosine-verify"
    assert PROJECT["project"]["scripts"] == {"verify": "verify.cli:main"}


def test_version_comes_from_the_package():
    assert "version" in PROJECT["project"]["dynamic"]
    assert "version" not in PROJECT["project"]
    assert PROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "verify.__version__"}
    major, minor, patch = verify.__version__.split(".")
    assert all(part.isdigit() for part in (major, minor, patch))


def test_licence_file_matches_the_declared_licence():
    assert PROJECT["project"]["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text


def test_type_marker_is_package_data():
    assert (ROOT / "verify" / "py.typed").is_file()
    assert "py.typed" in PROJECT["tool"]["setuptools"]["package-data"]["verify"]


def test_changelog_has_an_unreleased_entry():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n")
    assert "\n## [Unreleased]\n" in text
