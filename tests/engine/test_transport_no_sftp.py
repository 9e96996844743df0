"""A target whose sshd has no sftp subsystem: commands run, and a file call says what is missing."""

import pytest

from tests.sshd import sshd_server
from workers.transport import ConnectionLost, SSHTransport, TransportError


@pytest.fixture(scope="module")
def transport_without_sftp():
    with sshd_server("no-sftp", sftp=False) as server:
        transport = SSHTransport(server.spec)
        yield transport
        transport.close()


def test_commands_still_run_on_a_server_without_sftp(transport_without_sftp):
    assert transport_without_sftp.run(["echo", "up"]).text == "up\n"


def test_a_file_call_names_the_missing_sftp_subsystem(transport_without_sftp):
    with pytest.raises(TransportError) as failure:
        transport_without_sftp.exists("/tmp")
    assert "the SSH server at 127.0.0.1 has no sftp subsystem (Subsystem sftp in sshd_config)" in str(failure.value)
    assert not isinstance(failure.value, ConnectionLost)  # nothing to wait for: the host answers, without sftp
