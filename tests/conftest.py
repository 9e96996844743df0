"""Fixtures shared by all tests. Fixture plugins live in their own modules and are registered here."""

pytest_plugins = ["tests.sshd", "tests.pgbuilds"]
