"""The engine: drives target servers. Nothing here imports Django except tasks.py."""
