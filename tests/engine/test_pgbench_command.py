import pytest

from workers.pgbench import pgbench_command

COMMON = {
    "pgbench": "/usr/lib/postgresql/15/bin/pgbench",
    "host": "10.0.0.5",
    "port": 5433,
    "user": "bench",
    "dbname": "bench",
    "clients": 64,
    "threads": 32,
    "duration_s": 300,
    "protocol": "simple",
}


def option_value(argv: list[str], option: str) -> str:
    return argv[argv.index(option) + 1]


def test_a_custom_script_gets_the_file_and_an_explicit_scale():
    argv = pgbench_command(**COMMON, builtin="", script_path="/tmp/benchdash/reference.sql", scale=2000)

    assert option_value(argv, "-f") == "/tmp/benchdash/reference.sql"
    assert option_value(argv, "-s") == "2000"
    assert "-b" not in argv


def test_the_command_never_vacuums_and_reports_progress_every_second():
    argv = pgbench_command(**COMMON, builtin="", script_path="/tmp/s.sql", scale=1)

    assert "-n" in argv
    assert option_value(argv, "-P") == "1"


def test_pgbench_vacuums_first_only_when_asked_as_seed_003_ran_it():
    argv = pgbench_command(**COMMON, builtin="tpcb-like", script_path=None, scale=None, vacuum=True)

    assert "-n" not in argv
    assert argv[:9] == [COMMON["pgbench"], "-h", "10.0.0.5", "-p", "5433", "-U", "bench", "-c", "64"]


def test_clients_threads_duration_and_protocol_are_passed_as_given():
    argv = pgbench_command(**{**COMMON, "protocol": "prepared"}, builtin="select-only", script_path=None, scale=None)

    assert option_value(argv, "-c") == "64"
    assert option_value(argv, "-j") == "32"
    assert option_value(argv, "-T") == "300"
    assert option_value(argv, "-M") == "prepared"


def test_the_argv_starts_with_the_binary_and_the_target_and_ends_with_the_database():
    argv = pgbench_command(**COMMON, builtin="tpcb-like", script_path=None, scale=None)

    assert argv[:7] == ["/usr/lib/postgresql/15/bin/pgbench", "-h", "10.0.0.5", "-p", "5433", "-U", "bench"]
    assert argv[-1] == "bench"


def test_a_builtin_script_is_named_with_b_and_gets_no_scale():
    argv = pgbench_command(**COMMON, builtin="simple-update", script_path=None, scale=100)

    assert option_value(argv, "-b") == "simple-update"
    assert "-s" not in argv


def test_no_script_at_all_means_the_tpcb_like_builtin():
    argv = pgbench_command(**COMMON, builtin="", script_path=None, scale=None)

    assert option_value(argv, "-b") == "tpcb-like"


def test_progress_zero_leaves_out_the_progress_option():
    argv = pgbench_command(**COMMON, builtin="", script_path=None, scale=None, progress_s=0)

    assert "-P" not in argv


def test_it_refuses_a_custom_script_without_a_scale():
    with pytest.raises(ValueError, match="scale"):
        pgbench_command(**COMMON, builtin="", script_path="/tmp/s.sql", scale=None)


def test_it_refuses_an_unknown_builtin_and_an_unknown_protocol():
    with pytest.raises(ValueError, match="built-in"):
        pgbench_command(**COMMON, builtin="tpcc", script_path=None, scale=None)
    with pytest.raises(ValueError, match="protocol"):
        pgbench_command(**{**COMMON, "protocol": "binary"}, builtin="", script_path=None, scale=None)


def test_it_refuses_zero_threads():
    with pytest.raises(ValueError, match="positive"):
        pgbench_command(**{**COMMON, "threads": 0}, builtin="", script_path=None, scale=None)
