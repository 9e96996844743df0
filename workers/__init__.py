"""The engine: drives target servers. It imports no Django and nothing of benchdash (its tasks: benchdash/queue/)."""
