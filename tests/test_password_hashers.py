"""The tests hash passwords with MD5 (tests/conftest.py's fast_password_hasher); the site never does."""

import importlib

from django.conf import global_settings, settings

MD5 = "django.contrib.auth.hashers.MD5PasswordHasher"


def test_production_settings_hash_with_pbkdf2_and_accept_no_md5():
    production = importlib.import_module("benchdash.settings")
    hashers = getattr(production, "PASSWORD_HASHERS", global_settings.PASSWORD_HASHERS)
    assert hashers[0] == "django.contrib.auth.hashers.PBKDF2PasswordHasher"
    assert MD5 not in hashers


def test_only_the_tests_run_on_md5():
    assert settings.PASSWORD_HASHERS == [MD5]
