"""SSHTransport against a real sshd: commands, quoting, big output, timeouts, files."""

import threading
import time

import paramiko
import pytest
from paramiko.common import cMSG_CHANNEL_EOF

from tests.sshd import process_is_gone
from workers.transport import CommandFailed, CommandTimeout, ConnectionLost, SSHTransport


def test_it_connects_by_ssh_to_a_host_other_than_local(ssh_transport):
    assert isinstance(ssh_transport, SSHTransport)


def test_it_returns_the_output_and_exit_status_of_a_command(ssh_transport, ssh_target):
    result = ssh_transport.run(["sh", "-c", "id -un; echo oops >&2; exit 3"], check=False)
    assert result.exit_status == 3
    assert result.text == f"{ssh_target.username}\n"
    assert result.stderr == b"oops\n"
    assert result.ok is False


def test_it_raises_command_failed_with_the_result_when_checked(ssh_transport):
    with pytest.raises(CommandFailed) as failure:
        ssh_transport.run(["false"])
    assert failure.value.result.exit_status == 1


def test_it_passes_hostile_arguments_as_data_and_runs_nothing(ssh_transport, ssh_target):
    marker = f"{ssh_target.work_dir}/pwned"
    hostile = [f"'; touch {marker}; '", f"$(touch {marker})", f"`touch {marker}`", f"a\ntouch {marker}", '"\\"']
    result = ssh_transport.run(["printf", "%s|", *hostile])
    assert result.text == "|".join(hostile) + "|"
    assert ssh_transport.exists(marker) is False


def test_it_sets_the_environment_and_working_directory(ssh_transport, ssh_target):
    result = ssh_transport.run(
        ["sh", "-c", 'printf "%s %s" "$GREETING" "$(pwd)"'], env={"GREETING": "a b;c"}, cwd=ssh_target.work_dir
    )
    assert result.text == f"a b;c {ssh_target.work_dir}"


def test_it_reads_50_megabytes_of_output_without_deadlock(ssh_transport):
    started = time.monotonic()
    result = ssh_transport.run(["sh", "-c", "head -c 52428800 /dev/zero; head -c 1048576 /dev/zero >&2"], timeout=120)
    assert len(result.stdout) == 52428800
    assert len(result.stderr) == 1048576
    assert time.monotonic() - started < 120


def test_it_feeds_input_to_the_command(ssh_transport):
    assert ssh_transport.run(["wc", "-c"], input=b"x" * 300000).text.strip() == "300000"


def test_it_stops_a_command_over_its_timeout_and_the_remote_process_is_gone(ssh_transport, ssh_target):
    pid_file = f"{ssh_target.work_dir}/sleeper.pid"
    started = time.monotonic()
    with pytest.raises(CommandTimeout):
        ssh_transport.run(["sh", "-c", 'echo $$ > "$1"; exec sleep 60', "sh", pid_file], timeout=1.5)
    assert time.monotonic() - started < 10
    pid = int(ssh_transport.get_bytes(pid_file))
    assert process_is_gone(pid)


def test_it_round_trips_bytes_through_a_file_name_with_spaces_and_quotes(ssh_transport, ssh_target):
    path = f'{ssh_target.work_dir}/sub dir/it\'s a "file".bin'
    payload = bytes(range(256)) * 1000
    ssh_transport.put_bytes(payload, path, mode=0o600)
    assert ssh_transport.get_bytes(path) == payload
    assert ssh_transport.exists(path) is True
    assert ssh_transport.run(["stat", "-c", "%a", path]).text.strip() == "600"


def test_it_uploads_a_local_file(ssh_transport, ssh_target, tmp_path):
    local = tmp_path / "script.sql"
    local.write_text("SELECT 1;\n")
    ssh_transport.put_file(str(local), f"{ssh_target.work_dir}/scripts/script.sql")
    assert ssh_transport.get_bytes(f"{ssh_target.work_dir}/scripts/script.sql") == b"SELECT 1;\n"


def test_file_calls_from_many_threads_on_one_connection_each_get_their_own_answer(
    ssh_transport, ssh_target, monkeypatch
):
    """The runner's steps run side by side (workers/parallel.py) on one transport; paramiko's SFTP client would let
    two threads read each other's answers, and one then waits for an answer already taken (seen: a stat that hung
    120 s)."""
    monkeypatch.setattr(SSHTransport, "SFTP_IDLE_TIMEOUT_S", 5)  # a lost answer fails the test in seconds
    paths = [f"{ssh_target.work_dir}/threads/{number}" for number in range(8)]
    for number, path in enumerate(paths):
        ssh_transport.put_bytes(str(number).encode() * (number + 1), path)
    answers: dict[int, list[object]] = {}

    def read_and_stat(number: int) -> None:
        answers[number] = [
            (
                ssh_transport.get_bytes(paths[number]),
                ssh_transport.exists(paths[number]),
                ssh_transport.exists(f"{paths[number]}.not"),
            )
            for _ in range(25)
        ]

    threads = [threading.Thread(target=read_and_stat, args=(number,)) for number in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    assert answers == {number: [(str(number).encode() * (number + 1), True, False)] * 25 for number in range(8)}


def test_a_command_without_input_never_sends_an_eof_that_could_come_after_its_channel_closed(
    ssh_transport, monkeypatch
):
    """paramiko sends a channel's EOF after letting go of the channel's lock: a command that ended meanwhile had its
    channel closed both ways, and sshd dropped the whole connection for an EOF on a channel it no longer had ("ieof
    packet referred to nonexistent channel"), failing the commands beside it (a fresh clone's run, under load). A
    command without input sends none: its stdin is /dev/null on the host. Here each EOF a worker's own thread sends
    waits 0.5 s, as a loaded machine's scheduler may make it wait."""
    send = paramiko.Transport._send_user_message

    def late_eof(transport: paramiko.Transport, message: paramiko.Message) -> None:
        if message.asbytes()[:1] == cMSG_CHANNEL_EOF and threading.current_thread() is not transport:
            time.sleep(0.5)
        send(transport, message)

    monkeypatch.setattr(paramiko.Transport, "_send_user_message", late_eof)
    first = ssh_transport._client.get_transport()
    assert [ssh_transport.run(["true"]).exit_status for _ in range(3)] == [0] * 3  # ends without reading stdin
    assert ssh_transport.run(["cat"]).stdout == b""  # its stdin ends at once
    assert ssh_transport.run(["wc", "-c"], input=b"xyz").text.strip() == "3"
    assert ssh_transport._client.get_transport() is first


def test_it_reuses_one_connection_for_many_commands(ssh_transport):
    first = ssh_transport._client.get_transport()
    for _ in range(5):
        ssh_transport.run(["true"])
    assert ssh_transport._client.get_transport() is first


def test_a_command_whose_connection_goes_down_fails_at_once_as_a_lost_connection(ssh_transport):
    ssh_transport.run(["true"])
    connection = ssh_transport._client.get_transport()
    threading.Timer(1.0, connection.close).start()
    started = time.monotonic()
    with pytest.raises(ConnectionLost, match="closed before the command ended .the connection under it went down"):
        ssh_transport.run(["sleep", "30"], timeout=60)
    assert time.monotonic() - started < 10  # not the command's 30 s, nor its 60 s limit
