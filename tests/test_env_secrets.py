"""The store's and Redis's passwords: read from 0600 files into the default URLs."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from benchdash.env import secret_file, url_credentials


def test_a_password_file_is_read_without_its_line_break(tmp_path):
    path = tmp_path / "store-password"
    path.write_text("s3cret\n")
    path.chmod(0o600)
    assert secret_file(path) == "s3cret"


def test_no_password_file_means_no_password(tmp_path):
    (tmp_path / "file").write_text("")
    assert secret_file(tmp_path / "missing") == secret_file(tmp_path / "file" / "under-a-file") == ""


def test_a_password_file_others_may_read_is_refused(tmp_path):
    path = tmp_path / "store-password"
    path.write_text("s3cret")
    path.chmod(0o644)
    with pytest.raises(ImproperlyConfigured, match="may be read by other accounts"):
        secret_file(path)


def test_the_credentials_are_quoted_for_a_url_and_left_out_without_a_password():
    assert url_credentials("benchdash", "a/b@c{") == "benchdash:a%2Fb%40c%7B@"
    assert url_credentials("", "pw") == ":pw@"
    assert (url_credentials("benchdash", ""), url_credentials("", "")) == ("benchdash@", "")
